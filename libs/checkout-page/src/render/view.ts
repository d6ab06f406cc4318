import type { CheckoutView } from '@lib/payments';
import type { PagePayment } from '../page-model';

/**
 * Which part of the page is shown for a payment and the checkout on screen. The page's script
 * (libs/checkout-page/assets/checkout.js, `viewOf`) decides the same way after every poll; the server uses
 * this for the first paint.
 */
export type PageView = 'choose' | 'pay' | 'confirming' | 'underpaid' | 'remainder-wait' | 'expired' | 'canceled' | 'canceled-part' | 'review' | 'succeeded' | 'closed' | 'card';

export function viewOf(payment: Pick<PagePayment, 'status'>, checkout: Pick<CheckoutView, 'status' | 'rail'> | null, source: 'payment' | 'link' = 'payment'): PageView {
  if (payment.status === 'succeeded' || checkout?.status === 'completed') return 'succeeded';
  if (payment.status === 'needs_review' || checkout?.status === 'needs_review') return 'review';
  // a link's payment fails when its customer cancels its checkout, or lets it expire with nothing sent:
  // they may still pay again (a new payment, decision 0030; 0009 addendum, nineteenth session)
  if (source === 'link' && payment.status === 'failed' && (checkout?.status === 'canceled' || checkout?.status === 'expired')) return checkout.status;
  if (payment.status === 'canceled' || payment.status === 'failed') return 'closed';
  if (checkout === null) return 'choose';
  if (checkout.rail === 'card') return checkout.status === 'canceled' ? 'canceled' : 'card';
  switch (checkout.status) {
    case 'open':
      return 'pay';
    case 'confirming':
      return 'confirming';
    case 'awaiting_customer':
      return 'underpaid';
    case 'expired':
      return payment.status === 'underpaid' ? 'remainder-wait' : 'expired';
    case 'canceled':
      // part of the payment arrived: it stays with the payment, which takes no new checkout (payment_paid); only the business can ask for the rest
      return payment.status === 'underpaid' ? 'canceled-part' : 'canceled';
    default:
      return 'choose';
  }
}

/**
 * When the quote on screen stops taking money, as the customer is told (the countdown): the
 * checkout's `expires_at` (the end of the quote), or the payment's own `expires_at` when that comes
 * first — a pending payment expires then and fails its open checkouts (decision 0009) whatever the
 * quote says (audit M2, 2026-11-29). An underpaid payment does not expire (ExpirePayment: pending only).
 */
export function quoteEndsAt(payment: Pick<PagePayment, 'status' | 'expires_at'>, checkout: Pick<CheckoutView, 'expires_at'> | null): string | null {
  const quote = checkout?.expires_at ?? null;
  const own = payment.status === 'pending' ? payment.expires_at : null;
  if (quote === null || own === null) return quote;
  return Date.parse(own) < Date.parse(quote) ? own : quote;
}

/** The countdown's text: "m:ss" (or "h:mm:ss") from `now` to `end`, "ending now" once it has passed; "—" with no end. */
export function countdownText(end: string | null, now: number): string {
  if (end === null) return '\u2014';
  const left = Math.floor((Date.parse(end) - now) / 1000);
  if (left <= 0) return 'ending now';
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  const pad = (n: number) => (n < 10 ? '0' : '') + n;
  return `${h > 0 ? `${h}:${pad(m)}` : String(m)}:${pad(s)}`;
}
