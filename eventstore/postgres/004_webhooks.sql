-- Webhooks (docs/decisions/0013-webhooks.md). Two kinds of state live here rather than in a
-- projection, because rebuilding a projection drops its tables and replays the log, and neither
-- may be lost, replayed or recreated that way:
--
-- webhook_secrets: the signing secrets of webhook endpoints. They are not in the event log (an
-- auditor replaying the log must not read them, and a log is forever), so no replay could bring
-- them back: a rebuild can neither lose nor leak them. One row a secret: `pending` while the
-- create or rotation that minted it has not been recorded in the endpoint's stream, then
-- `active`. The current secret has expires_at NULL; the one it replaced signs too until its
-- expires_at (the rotation's grace period). `revision` is the stream revision of the event that
-- recorded the secret: the highest one is current, whatever order activations commit in.
CREATE TABLE webhook_secrets (
  id           text        PRIMARY KEY,
  webhook_id   text        NOT NULL,
  business_id  text        NOT NULL,
  secret       text        NOT NULL,
  state        text        NOT NULL DEFAULT 'pending',
  revision     bigint,
  created_at   timestamptz NOT NULL,
  activated_at timestamptz,
  expires_at   timestamptz,
  CONSTRAINT webhook_secrets_state CHECK (state IN ('pending', 'active')),
  CONSTRAINT webhook_secrets_active CHECK (state = 'pending' OR (revision IS NOT NULL AND activated_at IS NOT NULL))
);

CREATE INDEX webhook_secrets_webhook ON webhook_secrets (webhook_id);
CREATE INDEX webhook_secrets_business ON webhook_secrets (business_id);

-- webhook_deliveries: the outbox and the delivery log. The events projection inserts one row
-- per (event, subscribed enabled endpoint) with a deterministic id, ON CONFLICT DO NOTHING, and
-- only for log positions past webhook_outbox_horizon, so neither a restart nor a rebuild of that
-- projection sends anything twice. The dispatcher claims due rows (status 'retrying',
-- next_retry_at reached, no live lease) with a lease (locked_until, lease_token) and records
-- each attempt here; next_retry_at is the durable retry schedule, so retries survive restarts.
-- Times are wall-clock times.
CREATE TABLE webhook_deliveries (
  id                 text        PRIMARY KEY,
  business_id        text        NOT NULL,
  webhook_id         text        NOT NULL,
  event_id           text        NOT NULL,
  event_type         text        NOT NULL,
  subject_kind       text        NOT NULL,
  subject_id         text        NOT NULL,
  -- the event envelope exactly as sent (json keeps the text: every attempt sends the same bytes)
  payload            json        NOT NULL,
  test               boolean     NOT NULL DEFAULT false,
  -- ties of created_at sort by it: the event's log order, then the endpoint
  sort_key           text        NOT NULL,
  status             text        NOT NULL DEFAULT 'retrying',
  -- every attempt, whatever its trigger
  attempt            integer     NOT NULL DEFAULT 0,
  -- automatic attempts only: the position in the retry schedule
  automatic_attempts integer     NOT NULL DEFAULT 0,
  attempts           jsonb       NOT NULL DEFAULT '[]'::jsonb,
  response_status    integer,
  duration_ms        integer,
  next_retry_at      timestamptz,
  request_headers    jsonb       NOT NULL DEFAULT '{}'::jsonb,
  locked_until       timestamptz,
  lease_token        text,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  CONSTRAINT webhook_deliveries_status CHECK (status IN ('retrying', 'succeeded', 'failed')),
  CONSTRAINT webhook_deliveries_once UNIQUE (event_id, webhook_id)
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_retry_at) WHERE status = 'retrying';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (webhook_id, locked_until) WHERE status = 'retrying' AND locked_until IS NOT NULL;
CREATE INDEX webhook_deliveries_business ON webhook_deliveries (business_id, created_at DESC, sort_key DESC);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at DESC, sort_key DESC);

-- How far in the log the outbox has decided deliveries: events at or below this position never
-- get new deliveries, whatever a rebuild of the events projection replays (one row a projector).
CREATE TABLE webhook_outbox_horizon (
  name       text        PRIMARY KEY,
  position   text        NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
