/**
 * The payments read side: the `payments` projection (payments, checkouts, transfers), the pure
 * view reducers the webhook outbox can reuse, the spec §2 Payment / Checkout / Receipt objects,
 * and the queries the API answers from. Decisions: docs/decisions/0012-payment-read-models.md.
 */
export * from './logged-event';
export * from './payment-view';
export * from './checkout-view';
export * from './receipt-view';
export * from './payment-uri';
export * from './list-payments-query';
export * from './payments.projector';
export * from './payments.read-model';
