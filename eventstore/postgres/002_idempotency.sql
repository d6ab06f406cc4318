-- Idempotency keys (spec section 8): one row per (scope, key). A running row is a request in
-- progress, locked until locked_until (a crashed request frees its key then); a done row keeps
-- the request's 2xx response until expires_at. A row past its time is ignored and taken over
-- by the next request, and deleted by purgeExpired(). For a running row, expires_at equals
-- locked_until, so one index finds every expired row.
CREATE TABLE idempotency_keys (
  scope        text        NOT NULL,
  key          text        NOT NULL,
  fingerprint  text        NOT NULL,
  state        text        NOT NULL,
  token        text,
  response     jsonb,
  locked_until timestamptz,
  expires_at   timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT idempotency_keys_pkey PRIMARY KEY (scope, key),
  CONSTRAINT idempotency_keys_state CHECK (
    (state = 'running' AND token IS NOT NULL AND locked_until IS NOT NULL AND response IS NULL)
    OR (state = 'done' AND response IS NOT NULL)
  )
);

CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
