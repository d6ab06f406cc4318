/**
 * The shape of a logged event the read side folds (a `RecordedEvent` fits it), and the time of
 * an event: the business's own clock (`metadata.occurredAt`, which a simulated business's test
 * clock may run ahead of wall time) when the application recorded one, else the log's
 * `recordedAt`. Every timestamp a payment, checkout or receipt shows comes from here.
 */

export interface LoggedEvent {
  type: string;
  data: unknown;
  /** A payment or checkout stream (PAYMENT_STREAM, CHECKOUT_STREAM); other streams are ignored. */
  stream: string;
  metadata?: { occurredAt?: unknown; [key: string]: unknown } | null;
  recordedAt: Date | string;
}

/** ISO 8601 UTC with milliseconds: `metadata.occurredAt ?? recordedAt`. */
export function eventTime(event: Pick<LoggedEvent, 'metadata' | 'recordedAt'>): string {
  const occurred = event.metadata?.occurredAt;
  if (typeof occurred === 'string') {
    const ms = Date.parse(occurred);
    if (!Number.isNaN(ms)) return new Date(ms).toISOString();
  }
  return new Date(event.recordedAt).toISOString();
}
