import { ignoreUnknown } from '@lib/domain';
import type { ScheduleTimer } from '@lib/timers';
import { CheckoutState } from '../domain/checkout.decider';
import { SIGHTING_HOLD_MS } from '../domain/shared';
import { CheckoutEvent } from '../domain/checkout.events';
import { PaymentState } from '../domain/payment.decider';
import { PaymentEvent } from '../domain/payment.events';
import { SIMULATED_ARRIVAL_MS, SIMULATED_BLOCK_MS } from './simulated-chain';

/**
 * The durable timers an event sets (DESIGN "Time"; decision 0010): pure. Timer ids are
 * deterministic, so scheduling the same event's timers again (a retried reaction, the worker's
 * backstop) keeps one row. Due times are in the business's own time (its test clock).
 */
export const TIMER_KINDS = {
  quoteExpiry: 'checkout.quote_expiry',
  simulatedArrival: 'checkout.simulated_arrival',
  confirmation: 'checkout.confirmation',
  paymentExpiry: 'payment.expiry',
  cardAttemptExpiry: 'checkout.card_attempt_expiry',
} as const;

export type PaymentTimerKind = (typeof TIMER_KINDS)[keyof typeof TIMER_KINDS];

const at = (iso: string, plusMs = 0): Date => new Date(Date.parse(iso) + plusMs);

export function timersForCheckoutEvent(event: CheckoutEvent, after: CheckoutState, occurredAt: string): ScheduleTimer[] {
  if (after.status === 'none' || after.businessId === null) return [];
  const businessId = after.businessId;
  const checkoutId = after.id;
  switch (event.type) {
    case 'CheckoutOpened': {
      const out: ScheduleTimer[] = [quoteExpiryAt(after, event.data.expires_at, at(event.data.expires_at))];
      if (event.data.simulated) {
        out.push({ id: `${TIMER_KINDS.simulatedArrival}:${checkoutId}`, businessId, kind: TIMER_KINDS.simulatedArrival, subject: checkoutId, dueAt: at(occurredAt, SIMULATED_ARRIVAL_MS) });
      }
      return out;
    }
    case 'CheckoutAwaitingCustomer':
      // the quote of an underpaid checkout is extended (§8 remainder wait): a new expiry. An end
      // already past when it was decided (a transfer that took longer than the wait to confirm;
      // decision 0009, addendum 2026-11-30) sets none: the decider ended the quote in the same
      // append, or a sighting holds it, whose own timer ends it
      if (Date.parse(event.data.expires_at) <= Date.parse(occurredAt)) return [];
      return [quoteExpiryAt(after, event.data.expires_at, at(event.data.expires_at))];
    case 'CheckoutTransferSighted':
      // a transaction seen in the mempool holds the quote at most SIGHTING_HOLD_MS (0023 addendum,
      // 2026-11-29): the quote timer fires again then (a dropped sighting ends the quote itself)
      return [quoteExpiryAt(after, `sighted:${event.data.tx_hash}`, at(event.data.sighted_at, SIGHTING_HOLD_MS))];
    case 'CheckoutTransferDetected':
      return event.data.simulated ? [confirmationTimer(businessId, checkoutId, event.data.tx_hash, 1, occurredAt)] : [];
    case 'CheckoutConfirmationRecorded': {
      const { current, required, tx_hash } = event.data;
      return after.simulated && current < required ? [confirmationTimer(businessId, checkoutId, tx_hash, current + 1, occurredAt)] : [];
    }
    case 'CheckoutCardAttemptStarted':
      // the processor has until the attempt's end to answer (decision 0026)
      return [
        { id: `${TIMER_KINDS.cardAttemptExpiry}:${checkoutId}:${event.data.attempt_id}`, businessId, kind: TIMER_KINDS.cardAttemptExpiry, subject: checkoutId, payload: { attempt_id: event.data.attempt_id }, dueAt: at(event.data.expires_at) },
      ];
    case 'CardCheckoutOpened': // no quote: nothing ends a card checkout by itself
    case 'CheckoutCardAttemptSucceeded':
    case 'CheckoutCardAttemptDeclined':
    case 'CheckoutCardAttemptTimedOut':
    case 'CheckoutSightingDropped': // the drop decided the quote's end itself
    case 'CheckoutTransferWithdrawn': // an open checkout's quote timer is still scheduled; its confirmations stop with the watcher
    case 'CheckoutCanceled':
    case 'CheckoutSuperseded':
    case 'CheckoutClaimed':
    case 'CheckoutCompleted':
    case 'CheckoutNeedsReview':
    case 'CheckoutExpired':
    case 'CheckoutFailed':
    case 'CheckoutReviewResolved':
    case 'CheckoutCardChargeHeld':
    case 'CheckoutPaymentCovered': // a checkout awaiting the rest completes with it; a confirming one's timers run on
      return []; // a timer already scheduled for an ended checkout fires and finds nothing to do
    default:
      return ignoreUnknown(event, []);
  }
}

/**
 * A quote's expiry timer (`why`: its end, or what else set it). A live crypto checkout's names its
 * network: its firing waits until that network's watcher has read through the quote's end
 * (decision 0025, addendum of 2026-11-29, lateness at mining; TimerFiring).
 */
function quoteExpiryAt(after: Exclude<CheckoutState, { status: 'none' }>, why: string, dueAt: Date): ScheduleTimer {
  const timer: ScheduleTimer = { id: `${TIMER_KINDS.quoteExpiry}:${after.id}:${why}`, businessId: after.businessId as string, kind: TIMER_KINDS.quoteExpiry, subject: after.id, dueAt };
  return after.rail === 'crypto' && !after.simulated ? { ...timer, payload: { network: after.network } } : timer;
}

function confirmationTimer(businessId: string, checkoutId: string, txHash: string, current: number, occurredAt: string): ScheduleTimer {
  return {
    id: `${TIMER_KINDS.confirmation}:${checkoutId}:${txHash}:${current}`,
    businessId,
    kind: TIMER_KINDS.confirmation,
    subject: checkoutId,
    payload: { tx_hash: txHash, current },
    dueAt: at(occurredAt, SIMULATED_BLOCK_MS),
  };
}

export function timersForPaymentEvent(event: PaymentEvent, after: PaymentState): ScheduleTimer[] {
  if (after.status === 'none' || !after.details.business_id) return [];
  const businessId = after.details.business_id;
  /** The payment's expiry timer (`why`: a further firing of it, beside the one PaymentCreated scheduled). */
  // a live payment's expiry waits until the networks of its open quotes have been read through
  // it (decision 0025, addendum of 2026-11-29, lateness at mining; TimerFiring)
  const expiryAt = (dueAt: Date, why?: string): ScheduleTimer => ({
    id: `${TIMER_KINDS.paymentExpiry}:${after.id}${why ? `:${why}` : ''}`,
    businessId,
    kind: TIMER_KINDS.paymentExpiry,
    subject: after.id,
    dueAt,
    ...(after.details.mode === 'live' ? { payload: { live: true } } : {}),
  });
  if (event.type === 'PaymentCreated' && event.data.expires_at) return [expiryAt(at(event.data.expires_at))];
  // a transaction seen in the mempool holds the payment's expiry (0023 addendum, 2026-11-29): the
  // expiry timer fires again when the hold ends — at its bound, or (dropped) at once (its own time
  // when that is still ahead); a timer that finds the payment decided or held changes nothing
  if (event.type === 'PaymentTransferSighted' && after.expiresAt !== null) {
    const d = event.data;
    return [expiryAt(at(d.sighted_at, SIGHTING_HOLD_MS), `sighted:${d.checkout_id}:${d.tx_hash}`)];
  }
  if (event.type === 'PaymentSightingDropped' && after.expiresAt !== null) {
    const d = event.data;
    return [expiryAt(at(after.expiresAt), `dropped:${d.checkout_id}:${d.tx_hash}`)];
  }
  return [];
}
