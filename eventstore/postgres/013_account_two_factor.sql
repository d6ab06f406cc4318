-- TOTP secrets of two-step sign-in (decision 0036), sealed under the key-encryption key the
-- wallets use (AES-256-GCM; additional data `account_totp:<account>:<setup>`). Outside the log:
-- events name a secret by its setup id only, and a secret no longer of use (a replaced setup,
-- two-step sign-in turned off) is deleted.
CREATE TABLE IF NOT EXISTS account_totp_secrets (
  setup_id    text        PRIMARY KEY,
  account_id  text        NOT NULL,
  kek_id      text        NOT NULL,
  nonce       bytea       NOT NULL,
  ciphertext  bytea       NOT NULL,
  tag         bytea       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS account_totp_secrets_account ON account_totp_secrets (account_id);
