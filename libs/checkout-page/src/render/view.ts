import type { CheckoutView } from '@lib/payments';
import type { PagePayment } from '../page-model';

/**
 * Which part of the page is shown for a payment and the checkout on screen. The page's script
 * (libs/checkout-page/assets/checkout.js, `viewOf`) decides the same way after every poll; the server uses
 * this for the first paint.
 */
export type PageView = 'choose' | 'pay' | 'confirming' | 'underpaid' | 'remainder-wait' | 'expired' | 'canceled' | 'review' | 'succeeded' | 'closed' | 'card';

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
      return 'canceled';
    default:
      return 'choose';
  }
}
