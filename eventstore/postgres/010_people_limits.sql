-- Per person, address or code limits (spec section 8; decision 0033), when no Redis is configured.
-- One row per counter: `count` failures or sends; a fixed window that restarts the count when it
-- ends (null for a streak, which lasts until cleared); a lock; and when the row is forgotten
-- (null: kept until cleared, e.g. a password disabled after 100 failures). Times come from the
-- service's clock (parameters), never now(), so tests move time. Keys hold hashes, not addresses.
CREATE TABLE people_limits (
  key            text        PRIMARY KEY,
  count          integer     NOT NULL,
  window_ends_at timestamptz,
  locked_until   timestamptz,
  expires_at     timestamptz
);

CREATE INDEX people_limits_expires_at ON people_limits (expires_at) WHERE expires_at IS NOT NULL;
