import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, ConcurrencyError, EVENT_STORE, EventStore, LogPosition, metadataFor } from '@lib/eventstore';
import { idFromSeed, newId } from '@lib/http';
import { assertActive } from '../../app/access';
import { BusinessClock } from '../../app/business-clock';
import { CUSTOMER_GATE, CustomerGate, isValidEmail } from '../../app/customers';
import { later } from '../../app/positions';
import { seededEventIds } from '../../domain/checkout-to-payment';
import { PaymentsProcessManager } from '../../app/process-manager';
import { PAYMENTS_SETTINGS, PaymentsSettings } from '../../app/settings';
import { AppendedEvent, PaymentStreams } from '../../app/streams';
import { PaymentDomainError } from '../../domain/errors';
import { checkMetadata } from '../../domain/metadata';
import { CreatePayment, decidePayment, initialPaymentState } from '../../domain/payment.decider';
import { LoggedEvent } from '../../read/logged-event';
import { PaymentView, foldPaymentView } from '../../read/payment-view';
import { PaymentsReadModel } from '../../read/payments.read-model';
import { PAYMENT_EXPIRY_MAX_DAYS } from '../input-rules';
import { CreatePaymentCommand } from './create-payment.command';
import { PaymentReferences } from './payment-references';

const MAX_EXPIRY_MS = PAYMENT_EXPIRY_MAX_DAYS * 24 * 3600_000;

/** Where the payment comes from: a new one to write, or the live payment that holds the reference (answered as it is). */
type Target = { paymentId: string; create: true } | { paymentId: string; create: false; head: LogPosition | null };

/**
 * Creates a payment (spec §4, decision 0011). The request's shape is checked by
 * CreatePaymentRequest; here: the business is active, the metadata and e-mail rules, expires_at
 * within 90 days of the business's clock, the amount for the currency (the decider, before a
 * reference is claimed for it); then §8.9's reference; then decide, append, settle and wait.
 */
@CommandHandler(CreatePaymentCommand)
export class CreatePaymentHandler implements ICommandHandler<CreatePaymentCommand, { paymentId: string; payment?: PaymentView }> {
  private readonly references: PaymentReferences;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly streams: PaymentStreams,
    private readonly process: PaymentsProcessManager,
    private readonly clock: BusinessClock,
    private readonly runner: CommandRunner,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
    private readonly read: PaymentsReadModel,
    @Inject(CUSTOMER_GATE) private readonly customers: CustomerGate,
  ) {
    this.references = new PaymentReferences(store);
  }

  async execute({ business, input, meta }: CreatePaymentCommand): Promise<{ paymentId: string; payment?: PaymentView }> {
    // 1. the rules that need state or a table
    assertActive(business);
    const metadata = checkMetadata(input.metadata);
    const email = input.customer_email ?? null;
    if (email !== null && !isValidEmail(email)) throw new PaymentDomainError('invalid_email', 'customer_email is not a valid e-mail address.', 'customer_email');
    // the customer the e-mail names (decision 0029): 403 customer_blocked when blocked
    const customerId = email === null ? null : await this.customers.customerFor(business.id, email, 'customer_email');
    const now = await this.clock.nowOf(business);
    const expiresAt = input.expires_at ?? null;
    if (expiresAt !== null) {
      const t = Date.parse(expiresAt);
      if (t <= now.getTime() || t > now.getTime() + MAX_EXPIRY_MS) throw new PaymentDomainError('invalid_request', 'expires_at must be in the future and at most 90 days ahead.', 'expires_at');
    }
    const reference = input.reference ?? null;
    const code = newId('x').slice(2);
    const command = (paymentId: string): CreatePayment => ({
      type: 'CreatePayment',
      paymentId,
      amount: input.amount,
      currency: input.currency,
      feePayer: 'business',
      feeRateBps: this.settings.feeRateBps,
      linkId: null,
      expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
      details: {
        business_id: business.id,
        mode: business.simulated ? 'test' : 'live',
        code,
        description: input.description ?? null,
        reference,
        metadata,
        customer_id: customerId,
        customer_email: email,
        success_url: input.success_url ?? null,
        cancel_url: input.cancel_url ?? null,
      },
    });
    // a bad amount for the currency is refused before a reference is claimed for it
    decidePayment(command(newId('pmt')), initialPaymentState, { now });

    // 2. load: a reference names at most one live payment
    // under an Idempotency-Key the id and event ids come from the request: a run after one that
    // died between its append and its kept response finds that payment instead of making a second
    const seed = reference === null ? meta.idempotencySeed : undefined;
    const target: Target =
      reference !== null
        ? await this.byReference(business.id, reference, input.amount, input.currency)
        : seed === undefined
          ? { paymentId: newId('pmt'), create: true }
          : await this.byIdempotencySeed(seed);
    if (!target.create) {
      // the held payment, as it is: the read models must have it before the answer is read from them (#17.8)
      await this.runner.waitFor(target.head);
      return { paymentId: target.paymentId };
    }

    // 3. decide and append (CommandRunner), 4. settle the consequences
    const eventId = seededEventIds(seed);
    const decided = await this.streams.decidePayment(target.paymentId, command(target.paymentId), { now, metadata: metadataFor(meta), newStream: true, eventId });
    const settled = await this.process.settle(decided.appended);
    // 5. read your writes: a new payment alone is answered from its own events, as the projection
    // will show it, and this process's next reads for the business wait for it (readBarrier);
    // where the process does not apply the projections, or reactions followed, wait for them
    if (settled.position === null && decided.position !== null) {
      const state = foldPaymentView(decided.appended.map(asLogged));
      if (state !== null) {
        await this.runner.answeredBeforeReadModels(decided.position, business.id);
        return { paymentId: target.paymentId, payment: this.read.render(state) };
      }
    }
    await this.runner.waitFor(later(decided.head, settled.position));
    return { paymentId: target.paymentId };
  }

  /** The payment an earlier run of this idempotent request created, if it did (its stream exists), else the id to create it under. */
  private async byIdempotencySeed(seed: string): Promise<Target> {
    const paymentId = idFromSeed('pmt', seed);
    const head = await this.streams.head('payment', paymentId);
    return head === null ? { paymentId, create: true } : { paymentId, create: false, head };
  }

  /**
   * §8.9: the same reference, amount and currency returns the same payment; a reference naming a
   * live payment of another amount or currency, or one that received funds, is reference_in_use;
   * a holder that ended without funds (canceled, failed, expired) lets a new payment take it.
   */
  private async byReference(businessId: string, reference: string, amount: number, currency: string): Promise<Target> {
    const inUse = (why: string) => new PaymentDomainError('reference_in_use', `Reference ${JSON.stringify(reference)} belongs to ${why}.`, 'reference');
    for (let attempt = 1; ; attempt++) {
      const { claim, expected } = await this.references.read(businessId, reference);
      if (claim) {
        const holder = await this.streams.loadPayment(claim.paymentId);
        const state = holder.state;
        if (state.status === 'none') {
          // claimed, not written yet: the claiming request is between its two appends (or died there).
          // Writing it for the price it was claimed for is the same payment; for another price it is a live payment of another price.
          if (claim.amount !== undefined && (claim.amount !== amount || claim.currency !== currency)) throw inUse('a live payment of another amount or currency');
          return { paymentId: claim.paymentId, create: true };
        }
        const funded = state.status === 'underpaid' || state.status === 'needs_review' || state.status === 'succeeded' || Object.keys(state.transfers).length > 0;
        if (funded) throw inUse('a payment that received funds');
        if (state.status === 'pending') {
          if (state.amount !== amount || state.currency !== currency) throw inUse('a live payment of another amount or currency');
          return { paymentId: claim.paymentId, create: false, head: holder.head };
        }
      }
      const paymentId = newId('pmt');
      try {
        await this.references.claim(businessId, reference, { paymentId, amount, currency }, expected);
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < 10) continue;
        throw error;
      }
      return { paymentId, create: true };
    }
  }
}

/** An appended event as the log will give it to the projection (its data through JSON, as stored). */
function asLogged(appended: AppendedEvent): LoggedEvent {
  return {
    stream: appended.stream,
    type: appended.event.type,
    data: JSON.parse(JSON.stringify(appended.event.data)) as unknown,
    metadata: { occurredAt: appended.occurredAt },
    recordedAt: appended.occurredAt,
  };
}
