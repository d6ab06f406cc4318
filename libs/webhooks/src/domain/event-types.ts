import { createHash } from 'node:crypto';
import type { Resource } from '@lib/businesses';

/**
 * The API events (spec §6) the service can send, the documented full list. Endpoints subscribe
 * to some of them (or to `*`, every type, including types added later). A source of events
 * (event-source.ts) declares which of these it emits; a type not listed here cannot be emitted.
 *
 * - payment.created       a payment was created (API, link or checkout)
 * - payment.updated       a payment changed without changing status (metadata, method chosen,
 *                         transfer detected, confirmations)
 * - payment.underpaid     less than due arrived; the payment waits for the remainder
 * - payment.needs_review  a transfer needs the business's review (claim, wrong network, late,
 *                         card finished on a canceled attempt)
 * - payment.succeeded     the payment is paid (confirmed, or accepted by the business)
 * - payment.failed        the payment failed (a link's checkout canceled, expiry)
 * - payment.canceled      the business canceled the payment
 * - business.created      the business was created
 * - business.updated      the business object changed (suspended or reinstated by an operator; a confirmed alert e-mail)
 * - customer.created      a customer appeared (POST /customers, or the first payment naming its e-mail)
 * - customer.updated      the customer object changed (its name, e-mail or note; blocked or unblocked)
 * - link.created          a payment link was created (POST /links)
 * - link.updated          the link object changed (PATCH, archived, restored, disabled by the service)
 * - wallet_transaction.confirmed  a send from the wallet was confirmed by its network (decision 0040)
 * - wallet_transaction.failed     a send never landed, reverted, or (an external record) did not match the chain
 *
 * `webhook.test` is what POST /webhooks/{id}/test sends; no endpoint subscribes to it and it is
 * not listed by GET /events.
 */
export const EVENT_TYPES = [
  'payment.created',
  'payment.updated',
  'payment.underpaid',
  'payment.needs_review',
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'business.created',
  'business.updated',
  'customer.created',
  'customer.updated',
  'link.created',
  'link.updated',
  'wallet_transaction.confirmed',
  'wallet_transaction.failed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const TEST_EVENT_TYPE = 'webhook.test';
/** Subscribes an endpoint to every type, present and future. */
export const ALL_EVENT_TYPES = '*';

export const API_VERSION = 'v1';

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/** Types that may appear in a delivery (the subscribable ones and the test event). */
export function isDeliveryEventType(value: unknown): boolean {
  return isEventType(value) || value === TEST_EVENT_TYPE;
}

/**
 * The resource a restricted key needs read access to, to see an event of a type (or its
 * deliveries): by the type's first segment. Unknown segments need a secret key (null).
 */
const RESOURCE_OF_SEGMENT: Record<string, Resource> = {
  payment: 'payments',
  checkout: 'checkouts',
  customer: 'customers',
  link: 'links',
  business: 'business',
  webhook: 'webhooks',
  wallet: 'wallet',
  wallet_transaction: 'wallet',
  wallet_change: 'wallet',
};

export function resourceOfEventType(type: string): Resource | null {
  return RESOURCE_OF_SEGMENT[type.split('.')[0]] ?? null;
}

/** The first segments of event types a set of readable resources covers (for SQL filters). */
export function readableTypeSegments(canRead: (resource: Resource) => boolean): string[] {
  return Object.entries(RESOURCE_OF_SEGMENT)
    .filter(([, resource]) => canRead(resource))
    .map(([segment]) => segment);
}

/**
 * Whether a caller who reads the event types of `segments` (`readableTypeSegments`; null: every
 * type, a secret key or a dashboard session) may read every event of `types`, an endpoint's
 * subscription: each type's first segment readable, and `*` (every type, present and future)
 * only when every segment of the mapping is (decision 0013, addendum of 2026-11-29). The one
 * mapping of GET /events and the delivery log, applied to what an endpoint is sent.
 */
export function readsEventTypes(types: readonly string[], segments: readonly string[] | null): boolean {
  if (segments === null) return true;
  const readable = new Set(segments);
  return types.every((type) => (type === ALL_EVENT_TYPES ? Object.keys(RESOURCE_OF_SEGMENT).every((s) => readable.has(s)) : readable.has(type.split('.')[0])));
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A deterministic id: the prefix and 24 base62 characters of sha256(parts). */
function derivedId(prefix: string, ...parts: string[]): string {
  const digest = createHash('sha256').update(`${prefix}\u0000${parts.join('\u0000')}`).digest();
  let out = '';
  for (let i = 0; i < 24; i++) out += ALPHABET[digest[i] % 62];
  return `${prefix}_${out}`;
}

/**
 * The id of the API event a domain event gives: derived from the domain event's id (a UUID,
 * unique in the log), the API event's type and its occurrence among that type's events from the
 * same domain event, so a rebuild of the projection produces the same ids.
 */
export function apiEventId(domainEventId: string, type: string, occurrence = 0): string {
  return derivedId('evt', domainEventId, type, String(occurrence));
}

/** The one delivery of an event to an endpoint: the same (event, endpoint) always gives the same id. */
export function deliveryId(eventId: string, webhookId: string): string {
  return derivedId('dlv', eventId, webhookId);
}
