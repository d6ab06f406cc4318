import type { CheckoutView, PaymentStatus } from '@lib/payments';
import type { PayOption } from './availability';

/** What the page shows of a payment: public fields only (never reporting, fees, metadata or the customer). */
export interface PagePayment {
  /** null on a link's page before a checkout made its payment. */
  id: string | null;
  status: PaymentStatus;
  amount: number;
  currency: string;
  /** The price as people read it ("$100.00"). */
  amount_text: string;
  description: string | null;
  success_url: string | null;
  cancel_url: string | null;
  expires_at: string | null;
  /**
   * What the customer has sent on this payment so far and what is still due, in its coin (the
   * payment's `method`: the receipt shows the same), null before anything arrived and for a card.
   * A remainder checkout's own totals start at zero, so its page reads these (audit M1, 2026-11-29).
   */
  received: { asset: string; amount: string; remaining: string | null } | null;
  /**
   * What the payment has received in its own currency (the payment's `amount_received`, minor
   * units) and as people read it; 0 and null before anything counted (and on a link's page before
   * its payment). A succeeded payment the business accepted short shows this, never the price (audit M1, 2026-11-30).
   */
  amount_received: number;
  amount_received_text: string | null;
}

export type PageRail = 'crypto' | 'card';

/** Everything the checkout page is rendered from (GetCheckoutPageQuery). */
export interface CheckoutPageModel {
  code: string;
  /** What the code names: a payment's own page, or a payment link's (checkouts are opened with `link_code`, decision 0030). */
  source: 'payment' | 'link';
  payment: PagePayment;
  /**
   * What the page heads with: the payment's description (a blank one is none: "Payment"); a link's
   * page its name, the description under it (audit L7 and nit, 2026-11-30).
   */
  heading: { title: string; detail: string | null };
  /** The name and support address customers see: the checkout settings' display_name and support_email, else the business's own (decision 0028). */
  business: { name: string; support_email: string | null; simulated: boolean };
  /** The rails the customer may choose, in this order: the settings' rails, card only when a processor takes this business's cards. */
  rails: PageRail[];
  /** The business asks for the customer's e-mail on every checkout (settings' ask_email), crypto included. */
  ask_email: boolean;
  /** The checkout on screen (`?s=` when it is one of this payment's, else the payment's current one), public fields only. */
  checkout: CheckoutView | null;
  /** The coins and networks the customer may choose (within the settings' assets). */
  options: PayOption[];
  /** Why no new checkout can be opened now (the operator paused them), or null. */
  paused: string | null;
  /** The business's clock now (a simulated business's test clock may run ahead): countdowns are measured from it. */
  now: string;
}

/** The checkout page or receipt names no payment the service knows: the page answers 404. */
export class CheckoutPageNotFound extends Error {
  constructor(what: string) {
    super(`No ${what}.`);
  }
}

/** The code names a link that takes no new payments (archived) and no checkout of its was asked for: the page answers 410. */
export class CheckoutPageGone extends Error {}

/** A payment or link code as page URLs carry it (24 or 12 letters and digits today; up to 64 accepted). */
export const PAYMENT_CODE = /^[A-Za-z0-9]{1,64}$/;
/** A checkout id as `?s=` carries it. */
export const CHECKOUT_ID = /^chk_[A-Za-z0-9]{1,64}$/;
