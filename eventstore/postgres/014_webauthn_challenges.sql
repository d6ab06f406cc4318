-- WebAuthn challenges waiting for their answer (decision 0037): one per purpose and browser (a
-- session, or the `webauthn` cookie of a browser signing in), replaced by a newer one, valid five
-- minutes, and deleted when answered (DELETE … RETURNING: single use across processes). Not
-- events: a challenge is a random nonce with no history worth keeping.
CREATE TABLE IF NOT EXISTS webauthn_challenges (
  binding    text        PRIMARY KEY,
  challenge  text        NOT NULL,
  account_id text,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS webauthn_challenges_expiry ON webauthn_challenges (expires_at);
