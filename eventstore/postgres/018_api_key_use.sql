-- When each API key was last used (decision 0039): `last_used_at` of the key object. Not an
-- event (one per request would flood the log), nor a write per request: a process records a
-- key's use at most once a minute, after the request's answer, and a row written less than a
-- minute before is left as it is. Keys themselves are events on the business's stream.
CREATE TABLE IF NOT EXISTS api_key_activity (
  key_id       text        PRIMARY KEY,
  last_used_at timestamptz NOT NULL
);
