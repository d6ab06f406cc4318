import type { PaymentEvent } from './payment.events';

/** A payment event as the log returns it: the event and the time it was recorded. */
export type RecordedPaymentEvent = PaymentEvent & { recorded_at: string };

export interface TimelineEntry {
  type: string;
  created_at: string;
  data: Record<string, unknown> | null;
}

type EntryOf = [type: TimelineEntry['type'], data: TimelineEntry['data']];

/**
 * The entries each payment event adds to the timeline, in order: none for the state changes the
 * timeline does not list (metadata, needs_review, accepted, checkout ended). One member a type,
 * so a new type left out fails to compile.
 */
const TIMELINE_ENTRIES: { [Type in PaymentEvent['type']]: (data: Extract<PaymentEvent, { type: Type }>['data'], currency: string | null) => EntryOf[] } = {
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
  PaymentNeedsReview: () => [],
  PaymentAccepted: () => [],
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
    const entriesOf = TIMELINE_ENTRIES[e.type] as (data: PaymentEvent['data'], currency: string | null) => EntryOf[];
    return entriesOf(e.data, currency).map(([type, data]) => ({ type, created_at: e.recorded_at, data }));
  });
}
