import { Injectable } from '@nestjs/common';
import { CommandRunner } from '@lib/eventstore';
import { OpenCheckoutState } from '../domain/checkout.decider';
import type { CheckoutRules } from '../domain/checkout-rules';
import { PaymentDomainError } from '../domain/errors';
import { LivePaymentState } from '../domain/payment.decider';
import { PaymentsReadModel } from '../read/payments.read-model';
import { Loaded, PaymentStreams } from './streams';

/** The business a command acts for (a subset of the businesses read model). */
export interface ActingBusiness {
  id: string;
  simulated: boolean;
  status?: string;
  /** Its checkout settings (decision 0028), where the use case read them (POST /checkouts). */
  checkout?: CheckoutRules;
  /**
   * Its test clock's offset as the use case read it with the business, in the same statement
   * (PaymentsReadModel.actingBusiness): the business's now without another read (BusinessClock.nowOf).
   * Only on a business read for this request, never on one kept between requests (it may have moved since).
   */
  clockOffsetMs?: number;
}

/**
 * The business a caller acts as on the public checkout routes: a secret or restricted key acts
 * as its business only (another business's checkout is not_found); `null` is a public caller
 * (no credentials, or a publishable key), who may act on any checkout by its id.
 */
export type ActingFor = string | null;

/** §7 business_suspended: a suspended business creates no payments and opens no checkouts (open ones can finish). */
export function assertActive(business: ActingBusiness): void {
  if (business.status === 'suspended') throw new PaymentDomainError('business_suspended', 'The business is suspended.');
}

/**
 * Who may act on what (object-level authorization), shared by the use cases: a business's own
 * payment, a checkout visible to the caller, the payment a hosted page's code names. Everything
 * else is not_found, exactly as for an id that does not exist.
 */
@Injectable()
export class PaymentAccess {
  constructor(
    private readonly streams: PaymentStreams,
    private readonly read: PaymentsReadModel,
    private readonly runner: CommandRunner,
  ) {}

  /** The business's own payment as decided on (state and last position), or not_found. */
  async ownedPayment(business: ActingBusiness, paymentId: string): Promise<Loaded<LivePaymentState>> {
    const loaded = await this.streams.loadPayment(paymentId);
    if (loaded.state.status === 'none' || loaded.state.details.business_id !== business.id) throw new PaymentDomainError('not_found', `No payment ${paymentId}.`);
    return { state: loaded.state, head: loaded.head };
  }

  /** The checkout, or not_found when there is none or it belongs to another business than the one the caller acts as. */
  async visibleCheckout(checkoutId: string, actingFor: ActingFor): Promise<Loaded<OpenCheckoutState>> {
    const loaded = await this.streams.loadCheckout(checkoutId);
    const checkout = loaded.state;
    if (checkout.status === 'none' || (actingFor !== null && checkout.businessId !== actingFor)) throw new PaymentDomainError('not_found', `No checkout ${checkoutId}.`);
    return { state: checkout, head: loaded.head };
  }

  /** A business as the use cases act for it (active, simulated, its checkout settings), or null. */
  actingBusiness(businessId: string): Promise<ActingBusiness | null> {
    return this.read.actingBusiness(businessId);
  }

  /**
   * The payment a hosted checkout page's code names and the business it belongs to (as active,
   * simulated …), or payment_not_found — also for another business's code when the caller acts
   * as a business (`caller` non-null).
   */
  async paymentByCode(code: string, caller: ActingBusiness | null): Promise<{ paymentId: string; business: ActingBusiness }> {
    const notFound = () => new PaymentDomainError('payment_not_found', 'No payment with this code.', 'payment_code');
    // a code never changes owner: a row found is the answer; a missing one may be a payment just
    // created and answered before the projection had it (readBarrier), so look again after it
    let found = await this.read.paymentIdByCode(code);
    if (!found) {
      await this.runner.readBarrier(caller?.id ?? null);
      found = await this.read.paymentIdByCode(code);
    }
    if (!found || (caller !== null && caller.id !== found.businessId)) throw notFound();
    const business = await this.read.actingBusiness(found.businessId);
    if (!business) throw notFound();
    return { paymentId: found.paymentId, business };
  }
}
