import { Inject, Injectable } from '@nestjs/common';
import { WriteMeta, metadataFor } from '@lib/eventstore';
import { newId } from '@lib/http';
import { ActingBusiness, assertActive } from '../../app/access';
import { CUSTOMER_GATE, CustomerGate, actingAsCustomer, isValidEmail } from '../../app/customers';
import { LINK_GATE, LinkGate } from '../../app/links';
import { PAYMENTS_SETTINGS, PaymentsSettings } from '../../app/settings';
import { DEFAULT_CHECKOUT_RULES, assertAssetAccepted, assertEmailGiven, assertRailAccepted, narrowByLink } from '../../domain/checkout-rules';
import { PaymentDomainError } from '../../domain/errors';
import { CreatePayment, PaymentState, decidePayment, foldPayment, initialPaymentState } from '../../domain/payment.decider';
import { PaymentUseCaseSteps } from '../use-case-steps';
import type { OpenCheckoutRequest } from './open-checkout.dto';

/**
 * POST /checkouts with `link_code` (decision 0030): the link's payment, so the rest of the
 * open-checkout path runs as for a payment's code.
 * - The code names an active link (LINK_GATE: 404 link_not_found for none, a deleted or a
 *   disabled one; 410 link_archived); a key acting for another business gets link_not_found.
 * - The business's checkout settings narrowed by the link's (`rails`, `assets`; `ask_email` of
 *   either) are the rules the path checks.
 * - `replaces` naming a checkout of this link whose payment is still pending: that payment (a
 *   different choice carries it over, no second payment; the same choice returns the same quote).
 *   After a failed one (its checkout canceled: the payment failed) a new payment, without
 *   `replaces`. A checkout of another link or payment is 400 invalid_request, before anything is written.
 * - Otherwise a new payment: PaymentCreated with `link_id`, the link's price, description (else
 *   its name), success_url and metadata, and the customer the e-mail names. With or without an
 *   e-mail the payment is created at once (pending); without one it has no customer. It is
 *   returned UNWRITTEN (`unwritten`: its state as the creation would fold, and `write`): the
 *   checkout's path checks every refusal against that state (rates, wallet, card routes, the
 *   checkout decider's own rules) and writes the payment only when the checkout is about to be
 *   appended, so a refused request leaves no pending payment without a checkout. `write` records
 *   the payment on the link's stream first (decided there, so an archived, disabled or deleted
 *   link makes none and a link with payments is never deleted), then appends PaymentCreated.
 */
/** The payment a link code resolves to: an existing one (carried over by `replaces`), or a new one not written yet. */
export interface ResolvedLinkPayment {
  paymentId: string;
  business: ActingBusiness;
  input: OpenCheckoutRequest;
  /** A new payment: its state as created, and the write to run right before the checkout is appended. */
  unwritten?: { state: PaymentState; write: () => Promise<void> };
}

@Injectable()
export class LinkPayments {
  constructor(
    private readonly steps: PaymentUseCaseSteps,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
    @Inject(CUSTOMER_GATE) private readonly customers: CustomerGate,
    @Inject(LINK_GATE) private readonly links: LinkGate,
  ) {}

  async resolve(input: OpenCheckoutRequest, code: string, caller: ActingBusiness | null, meta: WriteMeta): Promise<ResolvedLinkPayment> {
    const link = await this.links.byCode(code);
    const notFound = () => new PaymentDomainError('link_not_found', 'No active link with this code.', 'link_code');
    if (caller !== null && caller.id !== link.businessId) throw notFound();
    const found = await this.steps.access.actingBusiness(link.businessId);
    if (found === null) throw notFound();
    // a suspended business makes no new payment; `replaces` carrying the link's pending payment over
    // may answer the open quote it names, which the open-checkout handler decides (0016 addendum, 2026-11-29)
    if (input.replaces === undefined) assertActive(found);
    const business: ActingBusiness = { ...found, checkout: narrowByLink(found.checkout ?? DEFAULT_CHECKOUT_RULES, link) };

    if (input.replaces !== undefined) {
      const replaced = (await this.steps.streams.loadCheckout(input.replaces)).state;
      if (replaced.status === 'none' || replaced.linkId !== link.id) {
        assertActive(found);
        throw new PaymentDomainError('invalid_request', 'replaces must name a checkout of the same link.', 'replaces');
      }
      const payment = await this.steps.streams.payment(replaced.paymentId);
      // the link's pending payment goes over to the new checkout; after a failed one (its checkout canceled) a new payment, as without `replaces`;
      // one that received funds or expired refuses as a payment's would (payment_paid, payment_expired)
      if (payment.status !== 'none' && payment.status !== 'failed') return { paymentId: replaced.paymentId, business, input };
      assertActive(found); // a new payment
      input = { ...input, replaces: undefined };
    }

    // what can be refused before a payment is written
    const rules = business.checkout!;
    const rail = input.rail ?? 'crypto';
    assertRailAccepted(rules, rail);
    if (rail === 'crypto' && input.asset !== undefined && input.network !== undefined) assertAssetAccepted(rules, input.asset, input.network);
    if (input.email !== undefined && !isValidEmail(input.email)) throw new PaymentDomainError('invalid_email', 'email is not a valid e-mail address.', 'email');
    assertEmailGiven(rules, input.email);
    const email = input.email ?? null;
    const customerId = email === null ? null : await this.customers.customerFor(business.id, email, 'email');

    const paymentId = newId('pmt');
    const now = await this.steps.clock.nowOf(business);
    const create: CreatePayment = {
        type: 'CreatePayment',
        paymentId,
        amount: link.amount,
        currency: link.currency,
        feePayer: 'business',
        feeRateBps: this.settings.feeRateBps,
        linkId: link.id,
        expiresAt: null,
        details: {
          business_id: business.id,
          mode: business.simulated ? 'test' : 'live',
          code: newId('x').slice(2),
          description: link.description ?? link.name,
          reference: null,
          metadata: { ...link.metadata },
          customer_id: customerId,
          customer_email: email,
          success_url: link.successUrl,
          cancel_url: null,
        },
      };
    const state = foldPayment(decidePayment(create, initialPaymentState, { now }));
    // the customer the e-mail names is the actor of the payment's creation (customer.created, payment.created)
    const asCustomer = actingAsCustomer(meta, customerId);
    const write = async (): Promise<void> => {
      await this.links.recordPayment(link.id, paymentId, asCustomer);
      const decided = await this.steps.streams.decidePayment(paymentId, create, { now, metadata: metadataFor(asCustomer), newStream: true });
      await this.steps.settle(decided);
    };
    return { paymentId, business, input, unwritten: { state, write } };
  }
}
