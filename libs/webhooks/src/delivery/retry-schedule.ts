/**
 * The retry schedule: the delay before attempt n (1-based) after attempt n-1 failed; the first
 * attempt is due when the delivery is created. Standard Webhooks' recommendation: immediately,
 * 5 seconds, 5 minutes, 30 minutes, 2 hours, 5 hours, 10 hours, 10 hours; after the eighth
 * failure the delivery is `failed` (about 27.6 hours after the event). The delivery row holds
 * where each delivery is on it (status, next_retry_at): see DeliveryStore and
 * docs/decisions/0013-webhooks.md, "The dispatcher".
 */
export const RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([0, 5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000, 10 * 3600_000]);
