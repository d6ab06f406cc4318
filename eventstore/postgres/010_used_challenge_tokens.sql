-- Bot-challenge tokens already used (spec §5.9, decision 0032), when there is no Redis: one row
-- per SHA-256 of a token, so a token passes once across every replica. A row past expires_at is
-- taken over by the next claim and deleted by purgeExpired().
CREATE TABLE used_challenge_tokens (
  digest     text        PRIMARY KEY,
  expires_at timestamptz NOT NULL
);

CREATE INDEX used_challenge_tokens_expires_at ON used_challenge_tokens (expires_at);
