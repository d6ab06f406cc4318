import type { RecordedEvent } from '@lib/eventstore';
import { PAYMENT_STREAM, PaymentViewState, evolvePaymentView, paymentObjectAsAnswered } from '@lib/payments';
import { ApiEventDraft, ApiEventSource } from './read/event-source';

/**
 * API events of payment streams (`payment-pmt_…`), spec §6: `data` is the payment as
 * GET /payments/{id} returns it at that event (metadata and timeline included), folded from the
 * payment's own stream with the read side's reducer (the stream names its checkout's address and
 * country, so nothing else is needed).
 *
 * | domain event | API event |
 * |---|---|
 * | PaymentCreated | payment.created |
 * | status becomes underpaid / needs_review / succeeded / failed / canceled | payment.underpaid / payment.needs_review / payment.succeeded / payment.failed / payment.canceled |
 * | PaymentUnderpaid while already underpaid (a remainder paid short) | payment.underpaid |
 * | PaymentMetadataUpdated, PaymentMethodSelected, PaymentCardMethodSelected, PaymentTransferDetected, PaymentTransferWithdrawn, PaymentRemainderRequested, PaymentTransferCountedAfterSuccess (status unchanged) | payment.updated |
 *
 * A transfer withdrawn by a reorganisation is a payment.updated (its `withdrawn` entry, the amount
 * back down): a subscriber told of the detection is told it no longer holds (chain audit M1, 2026-11-29).
 *
 * A PaymentTransferDetected that opens a review gives none either: its PaymentNeedsReview follows
 * in the same append and payment.needs_review carries the `detected` entry (recheck audit N3).
 *
 * PaymentRemainderPaid gives none: its PaymentSucceeded follows in the same append, and the
 * payment.succeeded carries its `remainder_paid` entry. A payment.updated for it showed a state no
 * GET ever returns — still underpaid, the remainder paid but not yet in amount_received — and a
 * subscriber taking deliveries as they arrive could end on it (money audit L1, 2026-11-29).
 *
 * | PaymentCardCharged for review on a payment that stays succeeded or in review (no status event follows) | payment.updated |
 *
 * A transfer to a completed checkout after the payment succeeded (0025 addendum, 2026-11-28)
 * therefore gives two payment.updated: when it is detected (the timeline and the transfers gain
 * it) and when it is final (method.amount, overpaid_amount and the settlement grow).
 *
 * Confirmation counts, accepted markers and checkout bookkeeping change the status (and give its
 * event) or nothing a subscriber acts on: no event, so a 32-confirmation network does not send
 * 32 deliveries.
 */
const STATUS_EVENT: Record<string, string> = {
  underpaid: 'payment.underpaid',
  needs_review: 'payment.needs_review',
  succeeded: 'payment.succeeded',
  failed: 'payment.failed',
  canceled: 'payment.canceled',
};

const UPDATES = new Set(['PaymentMetadataUpdated', 'PaymentMethodSelected', 'PaymentCardMethodSelected', 'PaymentTransferDetected', 'PaymentTransferWithdrawn', 'PaymentRemainderRequested', 'PaymentTransferCountedAfterSuccess']);

export function paymentEventSource(options: { checkoutBaseUrl: string }): ApiEventSource<PaymentViewState> {
  return {
    name: 'payment',
    types: ['payment.created', 'payment.updated', 'payment.underpaid', 'payment.needs_review', 'payment.succeeded', 'payment.failed', 'payment.canceled'],
    accepts: (event: RecordedEvent) => PAYMENT_STREAM.owns(event.stream),
    reduce: (view: PaymentViewState | null, event: RecordedEvent) => evolvePaymentView(view, event),
    map(event: RecordedEvent, { before, after }): ApiEventDraft[] {
      if (!after || !after.business_id) return [];
      const draft = (type: string): ApiEventDraft => ({
        type,
        subject: { kind: 'payment', id: after.id },
        data: paymentObjectAsAnswered(after, { checkoutBaseUrl: options.checkoutBaseUrl }) as unknown as Record<string, unknown>, // GET's bytes, key order included
        business_id: after.business_id!,
        mode: after.mode === 'live' ? 'live' : 'test',
        created_at: typeof event.metadata?.occurredAt === 'string' ? event.metadata.occurredAt : undefined,
      });
      if (event.type === 'PaymentCreated') return before ? [] : [draft('payment.created')];
      if (!before) return [];
      if (before.status !== after.status && STATUS_EVENT[after.status]) return [draft(STATUS_EVENT[after.status])];
      // another short transfer (a remainder paid short): the status stays underpaid, amount_received moves
      if (event.type === 'PaymentUnderpaid') return [draft('payment.underpaid')];
      // a card charged for review where the status does not move (paid another way, or in review already;
      // decision 0026 addendum 2026-11-28): its `card_charged` entry reaches the business this way
      if (event.type === 'PaymentCardCharged' && (event.data as { review: unknown }).review !== null && (after.status === 'succeeded' || after.status === 'needs_review')) return [draft('payment.updated')];
      // a transfer that opens a review: its PaymentNeedsReview follows in the same append (the payment
      // decider's recordTransfer), and payment.needs_review carries its `detected` entry — no
      // payment.updated of the state between them (recheck audit N3, 2026-11-29; as for a remainder paid)
      if (event.type === 'PaymentTransferDetected' && (event.data as { review: unknown }).review !== null && after.status !== 'succeeded' && after.status !== 'needs_review') return [];
      return UPDATES.has(event.type) ? [draft('payment.updated')] : [];
    },
  };
}
