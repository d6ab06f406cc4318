-- Lateness judged at mining (decision 0025, addendum of 2026-11-29): when a network's watcher
-- last asked its node for the head and had then scanned every block up to it (wall time). A live
-- quote's expiry waits until its network has been read through its end, so a transfer mined
-- inside the quote but read after it (a worker restart, a node outage) counts on time.
ALTER TABLE chain_cursors ADD COLUMN caught_up_at timestamptz;
