-- Worker liveness (decision 0017, addendum of 2026-11-29): every process that runs the background
-- work (role `worker` or `all`: projections, reactors, timers, webhook dispatch, chain watchers)
-- records itself here at start and refreshes seen_at every few seconds; a graceful stop sets
-- stopped_at. GET /health on any process reads it, so an `api` replica can tell that no worker
-- runs. id is opaque (random per process start, never a host or pid); times are the database's
-- clock, so processes on different hosts compare alike. Rows not seen for an hour are deleted by
-- the running processes.
CREATE TABLE worker_heartbeats (
  id          text        PRIMARY KEY,
  role        text        NOT NULL,
  started_at  timestamptz NOT NULL DEFAULT now(),
  seen_at     timestamptz NOT NULL DEFAULT now(),
  stopped_at  timestamptz,
  CONSTRAINT worker_heartbeats_role CHECK (role IN ('worker', 'all'))
);

CREATE INDEX worker_heartbeats_seen_at ON worker_heartbeats (seen_at);
