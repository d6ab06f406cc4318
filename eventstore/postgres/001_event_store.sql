-- Event store schema, shared by the postgres and embedded (PGlite) adapters.
-- A stream is its events: the unique (stream_id, stream_revision) index is both how a stream
-- is read and the optimistic-concurrency check of an append (two appends at one revision:
-- the second fails), so an append writes nothing but its events.

-- The global log. transaction_id (xid8) and global_position give the read order:
-- readers only read below the oldest running transaction, so an event whose transaction
-- commits late is never skipped (a bare bigserial cursor would skip it).
CREATE TABLE es_events (
  global_position bigserial   NOT NULL,
  transaction_id  xid8        NOT NULL DEFAULT pg_current_xact_id(),
  stream_id       text        NOT NULL,
  stream_revision bigint      NOT NULL,
  event_id        uuid        NOT NULL,
  event_type      text        NOT NULL,
  data            jsonb       NOT NULL,
  metadata        jsonb       NOT NULL,
  recorded_at     timestamptz NOT NULL DEFAULT now(),
  -- the log order is the key: readers scan it, nothing looks events up by position alone
  CONSTRAINT es_events_log_order PRIMARY KEY (transaction_id, global_position),
  CONSTRAINT es_events_stream_revision UNIQUE (stream_id, stream_revision),
  CONSTRAINT es_events_event_id UNIQUE (event_id)
);

-- Projection checkpoints live beside the read models they describe, written in the same
-- transaction as the projection's rows.
CREATE TABLE projection_checkpoints (
  name        text        PRIMARY KEY,
  position    text        NOT NULL DEFAULT 'start',
  events      bigint      NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  rebuilt_at  timestamptz
);
