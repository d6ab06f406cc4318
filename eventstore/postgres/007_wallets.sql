-- Wallets (issue 11, decision 0020): what the write side keeps outside the event log.

-- Sealed recovery phrases of wallets created or imported in the service: AES-256-GCM under the
-- key-encryption key of the configuration (never stored here), the wallet id as additional data.
-- Never in an event, a projection or a log line.
CREATE TABLE IF NOT EXISTS wallet_secrets (
  wallet_id   text        PRIMARY KEY,
  business_id text        NOT NULL,
  kek_id      text        NOT NULL,
  nonce       bytea       NOT NULL,
  ciphertext  bytea       NOT NULL,
  tag         bytea       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- The next unused derivation index of each wallet and address family. An allocator, like a
-- sequence: the index and address a checkout got are facts of its CheckoutOpened event, so a
-- replay derives nothing; a gap (a reservation whose checkout was never written) is harmless.
CREATE TABLE IF NOT EXISTS wallet_address_counters (
  wallet_id  text    NOT NULL,
  family     text    NOT NULL,
  next_index integer NOT NULL,
  PRIMARY KEY (wallet_id, family)
);
