import type { PaymentEvent } from './payment.events';

/** Who an event's metadata names as its actor (the `actor` of GET /events): an API key, a person, the system, … */
export interface TimelineActor {
  kind: string;
  id: string | null;
  name: string | null;
}

/** The actor of an event that recorded none (events written before actors were, tests). */
export const SYSTEM_TIMELINE_ACTOR: TimelineActor = Object.freeze({ kind: 'system', id: null, name: null });

/**
 * A payment event as the log returns it: the event, the time it was recorded and, when known,
 * the actor its metadata names (only the `accepted` entry shows it).
 */
export type RecordedPaymentEvent = PaymentEvent & { recorded_at: string; actor?: TimelineActor | null };

export interface TimelineEntry {
  type: string;
  created_at: string;
  data: Record<string, unknown> | null;
}

type EntryOf = [type: TimelineEntry['type'], data: TimelineEntry['data']];

/**
 * The entries each payment event adds to the timeline, in order: none for the state changes the
 * timeline does not list (metadata, checkout ended). One member a type, so a new type left out
 * fails to compile.
 */
const TIMELINE_ENTRIES: { [Type in PaymentEvent['type']]: (data: Extract<PaymentEvent, { type: Type }>['data'], currency: string | null, actor: TimelineActor) => EntryOf[] } = {
  PaymentCreated: () => [['created', null]],
  // a superseded quote the first transfer reached, made the method again by the payment, is no choice of the customer's (0025 addendum, 2026-11-29)
  PaymentMethodSelected: (d) => (d.reinstated === true ? [] : [['method_selected', { rail: d.rail, asset: d.asset, network: d.network }]]),
  PaymentTransferDetected: (d) => [['detected', { amount: d.amount, network: d.network, tx_hash: d.tx_hash }]],
  // a transaction seen in the mempool holds the expiry (0023 addendum, 2026-11-29): no entry — `detected` shows it once mined
  PaymentTransferSighted: () => [],
  PaymentSightingDropped: () => [],
  PaymentTransferWithdrawn: (d) => [['withdrawn', { amount: d.amount, network: d.network, tx_hash: d.tx_hash }]],
  PaymentConfirmationRecorded: (d) => [['confirmation', { current: d.current, required: d.required }]],
  // a transfer after success counted (0025 addendum): its `detected` and `confirmation` entries show it
  PaymentTransferCountedAfterSuccess: () => [],
  PaymentUnderpaid: (d) => [['underpaid', { expected: d.expected, received: d.received }]],
  PaymentSucceeded: () => [['succeeded', null]],
  PaymentRemainderRequested: (d) => [['remainder_requested', { checkout_id: d.checkout_id, amount: d.amount, currency: d.currency }]],
  PaymentClaimed: (d) => [['claimed', { tx_hash: d.tx_hash, network: d.network }]],
  PaymentFailed: (d) => [['failed', { reason: d.reason }]],
  PaymentExpired: () => [
    ['expired', null],
    ['failed', { reason: 'expired' }],
  ],
  PaymentRemainderPaid: (d) => [['remainder_paid', { checkout_id: d.checkout_id, amount: d.amount }]],
  PaymentCanceled: () => [['canceled', null]],
  PaymentMetadataUpdated: () => [],
  // the payment went to review, and why (decision 0012 addendum, 2026-11-30): the cause is the
  // checkout and the transfer (tx_hash) or card attempt (attempt_id) the event names, null when it names none
  PaymentNeedsReview: (d) => [['needs_review', { reason: d.reason, checkout_id: d.checkout_id, tx_hash: d.tx_hash ?? null, attempt_id: d.attempt_id ?? null }]],
  // the business counted it (same addendum): what it counted (the method's coin, or the card's
  // currency as a decimal) and who did, as GET /events names the actor (an API key, a person)
  PaymentAccepted: (d, _currency, actor) => [['accepted', { counted_amount: d.counted_amount, actor: { kind: actor.kind, id: actor.id, name: actor.name } }]],
  PaymentCheckoutEnded: () => [],
  // decision 0026: a card method is a method_selected with no coin or network; a charge the checkout
  // waited for adds no entry (succeeded follows). One for the business to review — above all one on
  // a payment already paid another way, whose status does not change — is `card_charged`
  // (addendum 2026-11-28): money to refund is never only in the log.
  PaymentCardMethodSelected: (d) => [['method_selected', { rail: d.rail, asset: null, network: null }]],
  PaymentCardCharged: (d, currency) =>
    d.review === null ? [] : [['card_charged', { checkout_id: d.checkout_id, attempt_id: d.attempt_id, amount: d.amount, currency, review_reason: d.review }]],
};

/** The payment's `events` (spec §2), oldest first, derived from its stream alone. */
export function timeline(events: readonly RecordedPaymentEvent[], paymentCurrency: string | null = null): TimelineEntry[] {
  let currency = paymentCurrency; // the payment's (or its PaymentCreated's): amounts in minor units name it
  return events.flatMap((e) => {
    if (e.type === 'PaymentCreated') currency = e.data.currency;
    if (!Object.hasOwn(TIMELINE_ENTRIES, e.type)) return []; // an unknown stored type adds no entry
    // the member of e's own type: its data is that type's
    const entriesOf = TIMELINE_ENTRIES[e.type] as (data: PaymentEvent['data'], currency: string | null, actor: TimelineActor) => EntryOf[];
    return entriesOf(e.data, currency, e.actor ?? SYSTEM_TIMELINE_ACTOR).map(([type, data]) => ({ type, created_at: e.recorded_at, data }));
  });
}
