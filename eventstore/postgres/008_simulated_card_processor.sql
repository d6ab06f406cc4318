-- The simulated card processors (decision 0026): the attempts they were asked to take and what
-- the customer did on their secure pages. The processors' own records, outside the event log:
-- what the service learns from them (an attempt's result) it records as checkout events.
CREATE TABLE IF NOT EXISTS simulated_card_attempts (
  ref          text        PRIMARY KEY,
  processor    text        NOT NULL,
  attempt_id   text        NOT NULL,
  checkout_id  text        NOT NULL,
  business_id  text        NOT NULL,
  amount       bigint      NOT NULL,
  currency     text        NOT NULL,
  email        text,
  return_url   text        NOT NULL,
  expires_at   timestamptz NOT NULL,
  -- pending (no card yet) | challenge | silent (never answers) | succeeded | declined
  status       text        NOT NULL,
  decline_code text,
  retryable    boolean,
  brand        text,
  last4        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  submitted_at timestamptz
);
CREATE INDEX IF NOT EXISTS simulated_card_attempts_attempt ON simulated_card_attempts (attempt_id);
