-- Chain watchers (issue 11, decision 0021): one watcher per network reads blocks from a node
-- and reports transfers to watched addresses. What it must not forget across restarts lives here.
--
-- chain_cursors: a row per network. next_height is the next height to scan (NULL until the first
-- watcher chose where to start); recent_blocks the scanned blocks it remembers as
-- [[height, "hash"], ...], oldest first: every one of the last (window ≥ confirmations required)
-- heights, then older ones at doubling distances, so a reorg of any depth is walked back to a
-- block both chains share. The lease (lease_owner, lease_until, wall time) makes one worker
-- the network's watcher: it is taken with FOR UPDATE SKIP LOCKED when free or expired, renewed
-- while the watcher runs, and every save is fenced by lease_owner, so a worker that lost it
-- (paused past its lease) writes nothing.
CREATE TABLE chain_cursors (
  network       text        PRIMARY KEY,
  next_height   bigint,
  recent_blocks jsonb       NOT NULL DEFAULT '[]'::jsonb,
  lease_owner   text,
  lease_until   timestamptz,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- chain_transfers: transfers a watcher reported that are not final yet. pending: in a canonical
-- block, its confirmations (the count last reported to the sink) growing; orphaned: its block left
-- the chain in a reorg and the rescan has not found it again yet (withdrawn once the scan has
-- caught up past orphaned_tip, the height the old chain had reached, without finding it). A row
-- is deleted once final (confirmations reached the required count) or withdrawn. Keyed like the
-- sink's reports: (network, tx_hash, idx).
CREATE TABLE chain_transfers (
  network       text           NOT NULL,
  tx_hash       text           NOT NULL,
  idx           integer        NOT NULL,
  asset         text           NOT NULL,
  amount        numeric(78, 0) NOT NULL,
  to_address    text           NOT NULL,
  from_address  text,
  reference     text,
  block_height  bigint         NOT NULL,
  block_hash    text           NOT NULL,
  confirmations integer        NOT NULL DEFAULT 0,
  status        text           NOT NULL DEFAULT 'pending',
  orphaned_tip  bigint,
  detected_at   timestamptz    NOT NULL DEFAULT now(),
  PRIMARY KEY (network, tx_hash, idx),
  CONSTRAINT chain_transfers_status CHECK (status IN ('pending', 'orphaned'))
);
