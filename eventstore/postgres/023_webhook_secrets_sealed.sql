-- Webhook signing secrets sealed at rest (docs/decisions/0013-webhooks.md, addendum of
-- 2026-11-30): like TOTP secrets (migration 013) and wallet phrases (migration 007), a secret is
-- sealed under the service's key-encryption key (WALLET_KEK / WALLET_KEK_FILE, or the embedded
-- store's development key): AES-256-GCM, a random 96-bit nonce, additional data
-- `webhook_secret:<webhook_id>:<id>` so a sealed secret moved to another row does not open, and
-- `kek_id` naming the key that sealed it. New rows are written sealed only (`secret` NULL).
--
-- The KEK is configuration, never in the database it protects, so this migration cannot seal the
-- rows written before it: every process that opens webhook secrets seals the rows still in clear
-- at start (WebhookSecretStore.sealClearSecrets: under an advisory lock, each row updated only
-- while its clear secret is still there), then sets `secret` to NULL.
ALTER TABLE webhook_secrets
  ADD COLUMN kek_id     text,
  ADD COLUMN nonce      bytea,
  ADD COLUMN ciphertext bytea,
  ADD COLUMN tag        bytea,
  ALTER COLUMN secret DROP NOT NULL,
  -- a row holds its secret in one form or the other, whole
  ADD CONSTRAINT webhook_secrets_kept CHECK (
    secret IS NOT NULL OR (kek_id IS NOT NULL AND nonce IS NOT NULL AND ciphertext IS NOT NULL AND tag IS NOT NULL)
  );

-- the rows left to seal at start (none, once every process has started once)
CREATE INDEX webhook_secrets_clear ON webhook_secrets (id) WHERE secret IS NOT NULL;
