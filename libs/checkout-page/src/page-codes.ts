import { Injectable } from '@nestjs/common';
import { LinkRow, LinksReadModel } from '@lib/links';
import { CheckoutView, PaymentView, PaymentsReadModel } from '@lib/payments';
import { CHECKOUT_ID, PAYMENT_CODE } from './page-model';

/** What the last segment of a page URL names: a payment with a page of its own, or a payment link (decision 0030). */
export type PageSubject = { kind: 'payment'; businessId: string; payment: PaymentView } | { kind: 'link'; businessId: string; link: LinkRow };

/** A checkout shown under a code, with its payment. */
export interface ShownCheckout {
  checkout: CheckoutView;
  payment: PaymentView;
}

/**
 * The codes the checkout page answers at `{checkout_url}/<code>` (decisions 0027, 0030): a
 * payment's code (a payment made through the API: its `url`), else a link's code (the link's
 * `url`: each checkout there makes or carries the link's payment, and `?s=<checkout>` resumes
 * one). A link payment has no page of its own (`url` null): its code answers nothing. A link
 * disabled by the service or deleted answers nothing; an archived one still shows the checkouts
 * it made (a customer may be paying), and no new ones. Public fields only.
 */
@Injectable()
export class PageCodes {
  constructor(
    private readonly payments: PaymentsReadModel,
    private readonly links: LinksReadModel,
  ) {}

  async subject(code: string): Promise<PageSubject | null> {
    if (!PAYMENT_CODE.test(code)) return null;
    const found = await this.payments.paymentIdByCode(code);
    if (found) {
      const payment = await this.payments.getPayment(found.businessId, found.paymentId);
      return payment && payment.url !== null ? { kind: 'payment', businessId: found.businessId, payment } : null;
    }
    const link = await this.links.byCode(code);
    return link && link.status !== 'disabled' ? { kind: 'link', businessId: link.business_id, link } : null;
  }

  /** The checkout `checkoutId` names when it belongs under this subject: one of the payment's, or of a payment the link made. */
  async checkout(subject: PageSubject, checkoutId: string | null): Promise<ShownCheckout | null> {
    if (checkoutId === null || !CHECKOUT_ID.test(checkoutId)) return null;
    const checkout = await this.payments.getCheckout(checkoutId, { secretFields: false, businessId: subject.businessId });
    if (!checkout) return null;
    if (subject.kind === 'payment') return checkout.payment_id === subject.payment.id ? { checkout, payment: subject.payment } : null;
    if (checkout.link_id !== subject.link.id) return null;
    const payment = await this.payments.getPayment(subject.businessId, checkout.payment_id);
    return payment && payment.link_id === subject.link.id ? { checkout, payment } : null;
  }

  /** The checkout under a code (`checkoutId` must name one of its checkouts), or null. */
  async checkoutUnder(code: string, checkoutId: string | null): Promise<ShownCheckout | null> {
    const subject = await this.subject(code);
    return subject ? this.checkout(subject, checkoutId) : null;
  }
}
