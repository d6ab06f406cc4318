import { Injectable } from '@nestjs/common';
import { CommandRunner, LogPosition, WriteMeta, metadataFor } from '@lib/eventstore';
import { ActingBusiness, ActingFor, PaymentAccess } from '../app/access';
import { BusinessClock } from '../app/business-clock';
import { actingAsCustomer, isAnonymousCustomer } from '../app/customers';
import { later } from '../app/positions';
import { PaymentsProcessManager } from '../app/process-manager';
import { Decided, PaymentStreams } from '../app/streams';
import { CheckoutCommand, CheckoutState, OpenCheckoutState } from '../domain/checkout.decider';
import { PaymentCommand, PaymentState } from '../domain/payment.decider';

/**
 * The steps the payments use cases share (decision 0014: validate what needs state, load, decide,
 * append, settle, wait): who may act on what (`access`), the business's clock (`clock`), the
 * streams (`streams`), and the write path every use case ends with — decide on the payment or
 * checkout stream and append (PaymentStreams, over the CommandRunner), settle the consequences
 * (the process manager), then wait until the read models have all of it (read your writes).
 * Each handler keeps its own rules and builds its own command; only these steps are here.
 */
@Injectable()
export class PaymentUseCaseSteps {
  constructor(
    readonly access: PaymentAccess,
    readonly streams: PaymentStreams,
    readonly clock: BusinessClock,
    private readonly process: PaymentsProcessManager,
    private readonly runner: CommandRunner,
  ) {}

  /** A command on the business's own payment (else not_found), decided at the business's clock; then append, settle, wait. */
  async onOwnedPayment(business: ActingBusiness, paymentId: string, command: PaymentCommand, meta: WriteMeta): Promise<Decided<PaymentState>> {
    await this.access.ownedPayment(business, paymentId);
    return this.decidePayment(paymentId, command, await this.clock.now(business.id), meta);
  }

  /**
   * A command on a checkout visible to the caller (else not_found) — as given, or made from the
   * checkout as loaded (the handler's own checks go there) — decided at its business's clock;
   * then append, settle, wait.
   */
  async onVisibleCheckout(
    checkoutId: string,
    actingFor: ActingFor,
    command: CheckoutCommand | ((checkout: OpenCheckoutState) => CheckoutCommand | Promise<CheckoutCommand>),
    meta: WriteMeta,
  ): Promise<Decided<CheckoutState>> {
    const checkout = await this.access.visibleCheckout(checkoutId, actingFor);
    const decide = typeof command === 'function' ? await command(checkout.state) : command;
    return this.decideCheckout(checkoutId, decide, await this.clock.now(checkout.state.businessId ?? undefined), await this.asPaymentsCustomer(meta, checkout.state.paymentId));
  }

  /** A checkout page's request (a customer actor without an id) as the payment's customer, when it has one (actingAsCustomer); the payment is read only then. */
  async asPaymentsCustomer(meta: WriteMeta, paymentId: string): Promise<WriteMeta> {
    if (!isAnonymousCustomer(meta)) return meta;
    const payment = await this.streams.payment(paymentId);
    return actingAsCustomer(meta, payment.status === 'none' ? null : payment.details.customer_id);
  }

  /** Decides the command on the payment's stream and appends it, settles the consequences and waits for the read models. */
  async decidePayment(paymentId: string, command: PaymentCommand, now: Date, meta: WriteMeta): Promise<Decided<PaymentState>> {
    const decided = await this.streams.decidePayment(paymentId, command, { now, metadata: metadataFor(meta) });
    await this.waitFor(await this.settle(decided));
    return decided;
  }

  /**
   * Decides the command on the checkout's stream and appends it, settles the consequences and
   * waits for the read models. `newStream`: the checkout id was just minted (no read before the append);
   * `eventId`: ids derived from the request (an idempotent create), random otherwise.
   */
  async decideCheckout(checkoutId: string, command: CheckoutCommand, now: Date, meta: WriteMeta, newStream = false, eventId?: (index: number) => string): Promise<Decided<CheckoutState>> {
    const decided = await this.streams.decideCheckout(checkoutId, command, { now, metadata: metadataFor(meta), newStream, eventId });
    await this.waitFor(await this.settle(decided));
    return decided;
  }

  /**
   * Settles what a decision appended (the process manager's reactions, in turn) and answers the
   * position a reader must wait for: the decided stream's head or the reactions' last event.
   */
  async settle(decided: Decided<unknown>): Promise<LogPosition | null> {
    const settled = await this.process.settle(decided.appended);
    return later(decided.head, settled.position);
  }

  /** Waits until the read models have `position` (read your writes; bounded). */
  async waitFor(position: LogPosition | null): Promise<void> {
    await this.runner.waitFor(position);
  }
}
