-- Alert e-mails of businesses (decision 0035): the outbox of the business-alerts reactor. One row
-- per log event that alerts a business (id = the event's id), written before the e-mail is sent
-- and marked sent after: an event the reactor sees again (a crash before its checkpoint moved,
-- another worker) finds its row sent and sends nothing. Addresses are kept for the record of
-- what was sent where; codes and secrets never go in alerts.
CREATE TABLE business_alert_emails (
  id           text        PRIMARY KEY,
  business_id  text        NOT NULL,
  kind         text        NOT NULL,
  subject_id   text        NOT NULL,
  recipient    text        NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  sent_at      timestamptz,
  attempts     integer     NOT NULL DEFAULT 0
);
CREATE INDEX business_alert_emails_business ON business_alert_emails (business_id, created_at);
