-- Durable timers (DESIGN.md "Time"): quote and payment expiry, simulated arrivals,
-- confirmations, webhook retries, wallet deletion. One row a timer; callers choose the id
-- (deterministic, so scheduling twice keeps one row). A worker claims due rows with
-- FOR UPDATE SKIP LOCKED and a lease (locked_until): a crashed worker's claim expires and the
-- timer is taken again, so timers fire at least once and handlers must be idempotent.
-- due_at is in the business's own time (wall time + its business_clocks offset); leases and
-- retry back-off (locked_until) are in wall time.
CREATE TABLE timers (
  id           text        PRIMARY KEY,
  business_id  text        NOT NULL,
  kind         text        NOT NULL,
  subject      text        NOT NULL,
  payload      jsonb       NOT NULL DEFAULT '{}'::jsonb,
  due_at       timestamptz NOT NULL,
  status       text        NOT NULL DEFAULT 'scheduled',
  attempts     integer     NOT NULL DEFAULT 0,
  last_error   text,
  locked_until timestamptz,
  fired_at     timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT timers_status CHECK (status IN ('scheduled', 'fired', 'canceled', 'failed'))
);

CREATE INDEX timers_status_due_at ON timers (status, due_at);
CREATE INDEX timers_subject ON timers (subject);

-- Test clocks: a simulated business's clock runs ahead of wall time by offset_ms. A business
-- without a row runs on wall time.
CREATE TABLE business_clocks (
  business_id text        PRIMARY KEY,
  offset_ms   bigint      NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT business_clocks_offset CHECK (offset_ms >= 0)
);
