-- Attempts in flight on a people limit's ladder (decision 0033, addendum of 2026-11-28): a slot
-- is held while a password or two-step code is being verified, so concurrent guesses can never
-- outnumber the failures left before the next lock. One row per slot held; it is freed when the
-- attempt ends, or forgotten at `expires_at` (the service's clock) if its process died.
CREATE TABLE people_limit_holds (
  key        text        NOT NULL,
  hold       text        NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (key, hold)
);

CREATE INDEX people_limit_holds_expires_at ON people_limit_holds (expires_at);
