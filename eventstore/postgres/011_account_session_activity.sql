-- When each dashboard session was last used (decision 0034): the idle expiry reads it. Not an
-- event (one per request would flood the log); written at most once a minute per session, and
-- removed with the session's expiry. Sessions themselves are events on the person's stream.
CREATE TABLE IF NOT EXISTS account_session_activity (
  session_id   text        PRIMARY KEY,
  last_seen_at timestamptz NOT NULL
);
