-- The dispatcher's claim, indexed (docs/decisions/0013-webhooks.md, "The dispatcher"). The claim
-- used to rank every due delivery with a window function to take each endpoint's oldest first
-- (a sort of the whole backlog on every claim: ~17 ms at 4,000 due). It now walks the endpoints
-- that have retrying deliveries (a skip scan of this index, one probe per endpoint) and reads
-- at most `perEndpoint` due deliveries of each, oldest first, straight from the index order.
-- So a claim costs about (endpoints with pending deliveries) index probes, whatever the backlog.
CREATE INDEX webhook_deliveries_due_by_endpoint ON webhook_deliveries (webhook_id, next_retry_at, id) WHERE status = 'retrying';

-- Only the old claim used it (next_retry_at alone, across endpoints); every delivery insert and
-- every attempt recorded paid for it.
DROP INDEX webhook_deliveries_due;
