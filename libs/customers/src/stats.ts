import type { RecordedEvent } from '@lib/eventstore';
import { PAYMENT_STREAM, eventTime } from '@lib/payments';
import { isCustomerId } from './stream-categories';
import type { CustomerStatsColumns } from './views';

/**
 * A customer's stats from its payments (decision 0029), as the two read sides that show them
 * take the payment streams: the `customers` projection (GET /customers; rows of
 * `customer_payments`, stats recomputed in SQL) and the `customer.*` API events (the events
 * projection's customer source, which keeps a tally per customer). Both read the payment events
 * through `customerPaymentChange` and fold one payment with `evolveCustomerPayment`; the tally
 * renders through `tallyColumns` into the same columns customerView renders, by the rules the
 * projection's SQL applies (test/customers/stats.property.spec.ts holds the two equal).
 */

/** The payment events the customers read side takes (a method of either rail: its rail is what `preferred_rail` counts). */
export const CUSTOMER_PAYMENT_EVENT_TYPES: readonly string[] = ['PaymentCreated', 'PaymentMethodSelected', 'PaymentCardMethodSelected', 'PaymentSucceeded'];

/** What the stats count of one payment naming a customer (a `customer_payments` row; `created_at` ISO). */
export interface CustomerPayment {
  payment_id: string;
  customer_id: string;
  business_id: string;
  currency: string;
  amount: number;
  rail: string | null;
  succeeded: boolean;
  created_at: string;
}

/** A payment event as the customers read side takes it. */
export type CustomerPaymentChange =
  /** A payment naming a customer (`email`, `mode`: the customer's when the payment makes it known). */
  | { type: 'created'; payment: CustomerPayment; email: string; mode: 'live' | 'test' }
  | { type: 'method'; payment_id: string; rail: string | null }
  | { type: 'succeeded'; payment_id: string };

/** The change a payment stream's event makes to what the customers read side keeps, or null. */
export function customerPaymentChange(event: RecordedEvent): CustomerPaymentChange | null {
  const paymentId = PAYMENT_STREAM.parse(event.stream);
  if (paymentId === null) return null;
  switch (event.type) {
    case 'PaymentCreated': {
      const d = event.data as { amount: number; currency: string; business_id?: string; mode?: string; customer_id?: string | null; customer_email?: string | null };
      if (!d.customer_id || !d.customer_email || !d.business_id || !isCustomerId(d.customer_id)) return null;
      return {
        type: 'created',
        payment: { payment_id: paymentId, customer_id: d.customer_id, business_id: d.business_id, currency: d.currency, amount: d.amount, rail: null, succeeded: false, created_at: eventTime(event) },
        email: d.customer_email,
        mode: d.mode === 'live' ? 'live' : 'test',
      };
    }
    case 'PaymentMethodSelected':
    case 'PaymentCardMethodSelected':
      return { type: 'method', payment_id: paymentId, rail: (event.data as { rail?: string | null }).rail ?? null };
    case 'PaymentSucceeded':
      return { type: 'succeeded', payment_id: paymentId };
    default:
      return null;
  }
}

/** One payment after a change: the first creation counts (a repeated one changes nothing); a method without a rail keeps the rail. */
export function evolveCustomerPayment(payment: CustomerPayment | null, change: CustomerPaymentChange): CustomerPayment | null {
  switch (change.type) {
    case 'created':
      return payment ?? change.payment;
    case 'method':
      return payment && change.rail !== null && change.rail !== payment.rail ? { ...payment, rail: change.rail } : payment;
    case 'succeeded':
      return payment && !payment.succeeded ? { ...payment, succeeded: true } : payment;
  }
}

/** A payment's place in "latest" order: creation time, then payment id (code points, as the SQL's COLLATE "C"). */
interface Latest {
  at: string;
  id: string;
  currency: string;
}

/**
 * A customer's stats kept payment by payment (JSON values only: it is stored as a view). Sums are
 * decimal strings (exact past 2^53, like the projection's bigint).
 */
export interface CustomerStatsTally {
  payments: number;
  succeeded: number;
  /** The latest payment, and the latest succeeded one. */
  latest: Latest | null;
  latest_succeeded: Latest | null;
  /** Succeeded payments per currency: the sum of their prices and their number. */
  sums: Record<string, { volume: string; count: number }>;
  /** Succeeded payments with a rail, per rail. */
  rails: Record<string, number>;
}

export const EMPTY_STATS_TALLY: CustomerStatsTally = { payments: 0, succeeded: 0, latest: null, latest_succeeded: null, sums: {}, rails: {} };

const later = (a: Latest | null, b: Latest): Latest => (a === null || b.at > a.at || (b.at === a.at && b.id > a.id) ? b : a);
const latestOf = (p: CustomerPayment): Latest => ({ at: p.created_at, id: p.payment_id, currency: p.currency });

/**
 * The tally after one payment of the customer changed from `before` to `after` (null before: a new
 * payment). A payment never leaves its customer nor un-succeeds, and its time, id, currency and
 * price never change; its rail may.
 */
export function tallyPayment(tally: CustomerStatsTally, before: CustomerPayment | null, after: CustomerPayment | null): CustomerStatsTally {
  if (after === null) return tally;
  const next: CustomerStatsTally = { ...tally, sums: { ...tally.sums }, rails: { ...tally.rails } };
  if (before === null) {
    next.payments += 1;
    next.latest = later(next.latest, latestOf(after));
  }
  const wasSucceeded = before?.succeeded === true;
  if (after.succeeded && !wasSucceeded) {
    next.succeeded += 1;
    next.latest_succeeded = later(next.latest_succeeded, latestOf(after));
    const sum = next.sums[after.currency] ?? { volume: '0', count: 0 };
    next.sums[after.currency] = { volume: (BigInt(sum.volume) + BigInt(after.amount)).toString(), count: sum.count + 1 };
  }
  const railBefore = wasSucceeded ? before!.rail : null;
  const railAfter = after.succeeded ? after.rail : null;
  if (railBefore !== railAfter) {
    if (railBefore !== null) {
      const left = (next.rails[railBefore] ?? 0) - 1;
      if (left > 0) next.rails[railBefore] = left;
      else delete next.rails[railBefore];
    }
    if (railAfter !== null) next.rails[railAfter] = (next.rails[railAfter] ?? 0) + 1;
  }
  return next;
}

/**
 * The stats columns of a tally, by the projection's rules (decision 0029): the stats currency is
 * that of the latest succeeded payment, else of the latest payment; `volume` sums the succeeded
 * payments in it and `average` divides by their number, rounded down; the preferred rail is the
 * one most succeeded payments used, a tie to the first in code-point order.
 */
export function tallyColumns(tally: CustomerStatsTally): CustomerStatsColumns {
  const currency = (tally.latest_succeeded ?? tally.latest)?.currency ?? null;
  const sum = currency === null ? undefined : tally.sums[currency];
  const volume = sum ? BigInt(sum.volume) : 0n;
  let preferred: string | null = null;
  for (const [rail, count] of Object.entries(tally.rails)) {
    if (preferred === null || count > tally.rails[preferred] || (count === tally.rails[preferred] && rail < preferred)) preferred = rail;
  }
  return {
    payments_count: tally.payments,
    incomplete_count: tally.payments - tally.succeeded,
    stats_currency: currency,
    volume: volume.toString(),
    average: sum && sum.count > 0 ? (volume / BigInt(sum.count)).toString() : '0',
    last_payment_at: tally.latest?.at ?? null,
    preferred_rail: preferred,
  };
}
