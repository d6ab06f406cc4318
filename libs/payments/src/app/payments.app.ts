import { createHash } from 'node:crypto';
import { AssetCode, NetworkId, isAssetCode, isNetworkId } from '@lib/chains';
import { ConcurrencyError, EventStore, LogPosition, SYSTEM_ACTOR, StreamNotFoundError, WriteMeta, comparePositions, metadataFor } from '@lib/eventstore';
import { newId } from '@lib/http';
import { ScheduleTimer, Timer, TimerStore } from '@lib/timers';
import { CheckoutState, OpenCheckoutState, OpenCryptoCheckout, SimulatedTransfer } from '../domain/checkout.decider';
import { Reaction, react, reactionEventId, uuidv5 } from '../domain/checkout-to-payment';
import { CHECKOUT_STREAM, PAYMENT_STREAM } from '../domain/stream-categories';
import { PaymentDomainError } from '../domain/errors';
import { checkMetadata, checkMetadataPatch } from '../domain/metadata';
import { LivePaymentState, PaymentState, decidePayment } from '../domain/payment.decider';
import { CheckoutEvent } from '../domain/checkout.events';
import { PaymentEvent } from '../domain/payment.events';
import { customerIdFor, isValidEmail } from './customers';
import { TIMER_KINDS, timersForCheckoutEvent, timersForPaymentEvent } from './payment-timers';
import { RatePort, simulatedDepositAddress, simulatedSenderAddress, simulatedTxHash, PAYMENT_CURRENCIES } from './simulated-chain';
import { AppendedEvent, DecideOptions, PaymentStreams } from './streams';

/**
 * The payments application service: what the HTTP controllers, the timers and the worker's
 * backstop call. It turns requests into domain commands (ids, the business's clock, rates and
 * addresses come in here, never inside a decider), runs the checkout ⇄ payment process manager
 * inline until nothing more happens (`settle`), schedules the durable timers the events set,
 * and waits until the read models have the result (read your writes) before answering.
 */

/** The business a command acts for (a subset of the businesses read model). */
export interface ActingBusiness {
  id: string;
  simulated: boolean;
  status?: string;
}

/** Who asked, in which request: the events' metadata (the event store's WriteMeta). */
export type CommandContext = WriteMeta;

/**
 * The business a caller acts as on the public checkout routes: a secret or restricted key acts
 * as its business only (another business's checkout is not_found); `null` is a public caller
 * (no credentials, or a publishable key), who may act on any checkout by its id.
 */
export type ActingFor = string | null;

export interface CreatePaymentInput {
  amount: number;
  currency: string;
  description?: string | null;
  reference?: string | null;
  customer_email?: string | null;
  metadata?: Record<string, unknown> | null;
  success_url?: string | null;
  cancel_url?: string | null;
  expires_at?: string | null;
}

export interface OpenCheckoutInput {
  payment_code?: string;
  link_code?: string;
  rail?: string;
  asset?: string;
  network?: string;
  email?: string;
  country?: string;
  replaces?: string;
  simulate?: string;
}

export interface PaymentsAppOptions {
  /** Quote life (spec §4: the default is 15 minutes). */
  quoteTtlMs: number;
  /** Processing fee rate of every business until businesses carry their own (decision 0011). */
  feeRateBps: number;
  /** How long a command waits for the read models (read your writes). */
  readYourWritesTimeoutMs?: number;
}

/** Where the payment lives and who owns it: the read model's code index. */
export interface PaymentLookup {
  paymentIdByCode(code: string): Promise<{ paymentId: string; businessId: string } | null>;
}

export interface ReadModelWait {
  waitFor(position: LogPosition, timeoutMs?: number): Promise<boolean>;
}

export interface SettleResult {
  position: LogPosition | null;
}

const REMAINDER_REUSE_MS = 2 * 60_000;
const MAX_EXPIRY_MS = 90 * 24 * 3600_000;

export class PaymentsApp {
  readonly streams: PaymentStreams;
  /**
   * Events this process settled completely (insertion-ordered, bounded): the backstop in the same
   * process skips them. After a crash the set is gone, so the backstop settles them again.
   */
  private readonly settledHere = new Set<string>();

  constructor(
    private readonly store: EventStore,
    private readonly timers: TimerStore,
    private readonly readModels: ReadModelWait,
    private readonly lookup: PaymentLookup,
    private readonly rates: RatePort,
    private readonly options: PaymentsAppOptions,
  ) {
    this.streams = new PaymentStreams(store);
  }

  // ---------------------------------------------------------------- payments

  async createPayment(business: ActingBusiness, input: CreatePaymentInput, context: CommandContext = {}): Promise<{ paymentId: string }> {
    this.assertActive(business);
    const currency = input.currency;
    if (!PAYMENT_CURRENCIES.includes(currency)) throw new PaymentDomainError('invalid_request', `currency must be one of ${PAYMENT_CURRENCIES.join(', ')}.`, 'currency');
    const metadata = checkMetadata(input.metadata);
    const email = input.customer_email ?? null;
    if (email !== null && !isValidEmail(email)) throw new PaymentDomainError('invalid_email', 'customer_email is not a valid e-mail address.', 'customer_email');
    const now = await this.now(business.id);
    const expiresAt = input.expires_at ?? null;
    if (expiresAt !== null) {
      const t = Date.parse(expiresAt);
      if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d)$/.test(expiresAt) || Number.isNaN(t)) {
        throw new PaymentDomainError('invalid_request', 'expires_at must be an ISO 8601 timestamp.', 'expires_at');
      }
      if (t <= now.getTime() || t > now.getTime() + MAX_EXPIRY_MS) throw new PaymentDomainError('invalid_request', 'expires_at must be in the future and at most 90 days ahead.', 'expires_at');
    }
    for (const field of ['success_url', 'cancel_url'] as const) {
      const url = input[field];
      if (url !== undefined && url !== null && !isHttpUrl(url)) throw new PaymentDomainError('invalid_request', `${field} must be an absolute http(s) URL of at most 2048 characters.`, field);
    }
    const reference = input.reference ?? null;
    const decide = async (paymentId: string) => {
      const command = {
        type: 'CreatePayment' as const,
        paymentId,
        amount: input.amount,
        currency,
        feePayer: 'business' as const,
        feeRateBps: this.options.feeRateBps,
        linkId: null,
        expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
        details: {
          business_id: business.id,
          mode: business.simulated ? ('test' as const) : ('live' as const),
          code: newId('x').slice(2),
          description: input.description ?? null,
          reference,
          metadata,
          customer_id: email === null ? null : customerIdFor(business.id, email),
          customer_email: email,
          success_url: input.success_url ?? null,
          cancel_url: input.cancel_url ?? null,
        },
      };
      // refuse a bad amount before a reference is claimed for it
      decidePayment(command, { status: 'none' }, { now });
      return this.run({ target: 'payment', id: paymentId }, command, { now, metadata: metadataFor(context) });
    };
    if (reference === null) {
      const paymentId = newId('pmt');
      await decide(paymentId);
      return { paymentId };
    }
    return this.createWithReference(business, reference, input.amount, currency, decide);
  }

  /**
   * §8.9: the same reference, amount and currency returns the same payment; a reference naming a
   * live payment of another amount or currency, or one that received funds, is reference_in_use.
   * A reference stream (`payment-reference-<business>-<hash>`) records which payment holds the
   * reference; appending to it at the revision read is the uniqueness check under concurrency.
   */
  private async createWithReference(
    business: ActingBusiness,
    reference: string,
    amount: number,
    currency: string,
    decide: (paymentId: string) => Promise<unknown>,
  ): Promise<{ paymentId: string }> {
    const stream = `payment-reference-${business.id}-${createHash('sha256').update(reference).digest('hex').slice(0, 40)}`;
    for (let attempt = 1; ; attempt++) {
      let holder: string | null = null;
      let revision: number | null = null;
      try {
        const events = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
        holder = (events[0].data as { payment_id: string }).payment_id;
        revision = events[0].revision;
      } catch (error) {
        if (!(error instanceof StreamNotFoundError)) throw error;
      }
      if (holder !== null) {
        const state = await this.streams.payment(holder);
        if (state.status === 'none') {
          // the reference was taken but the payment never written (a crash between): write it now
          await decide(holder);
          return { paymentId: holder };
        }
        const funded = state.status === 'underpaid' || state.status === 'needs_review' || state.status === 'succeeded' || Object.keys(state.transfers).length > 0;
        const live = state.status === 'pending';
        if (funded) throw new PaymentDomainError('reference_in_use', `Reference ${JSON.stringify(reference)} belongs to a payment that received funds.`, 'reference');
        if (live) {
          if (state.amount !== amount || state.currency !== currency) {
            throw new PaymentDomainError('reference_in_use', `Reference ${JSON.stringify(reference)} belongs to a live payment of another amount or currency.`, 'reference');
          }
          return { paymentId: holder };
        }
      }
      const paymentId = newId('pmt');
      try {
        await this.store.append(stream, [{ id: uuidv5(`reference|${stream}|${paymentId}`), type: 'PaymentReferenceClaimed', data: { reference, payment_id: paymentId } }], revision === null ? 'no_stream' : revision);
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < 10) continue;
        throw error;
      }
      await decide(paymentId);
      return { paymentId };
    }
  }

  async updateMetadata(business: ActingBusiness, paymentId: string, metadata: unknown, context: CommandContext = {}): Promise<void> {
    const patch = checkMetadataPatch(metadata === undefined ? {} : metadata);
    await this.owned(business, paymentId);
    await this.run({ target: 'payment', id: paymentId }, { type: 'UpdateMetadata', metadata: patch }, { now: await this.now(business.id), metadata: metadataFor(context) });
  }

  async cancelPayment(business: ActingBusiness, paymentId: string, context: CommandContext = {}): Promise<void> {
    await this.owned(business, paymentId);
    await this.run({ target: 'payment', id: paymentId }, { type: 'CancelPayment' }, { now: await this.now(business.id), metadata: metadataFor(context) });
  }

  async acceptPayment(business: ActingBusiness, paymentId: string, context: CommandContext = {}): Promise<void> {
    await this.owned(business, paymentId);
    await this.run({ target: 'payment', id: paymentId }, { type: 'AcceptPayment' }, { now: await this.now(business.id), metadata: metadataFor(context) });
  }

  /** Opens (or returns the open) remainder checkout; resolves its id. */
  async requestRemainder(business: ActingBusiness, paymentId: string, context: CommandContext = {}): Promise<{ checkoutId: string }> {
    this.assertActive(business);
    await this.owned(business, paymentId);
    const checkoutId = newId('chk');
    const decided = await this.run({ target: 'payment', id: paymentId }, { type: 'RequestRemainder', checkoutId, hasCheckoutPage: true }, { now: await this.now(business.id), metadata: metadataFor(context) });
    const state = decided as LivePaymentState;
    const id = state.remainderCheckoutId;
    if (!id) throw new Error(`payment ${paymentId}: no remainder checkout after RequestRemainder`);
    return { checkoutId: id };
  }

  // ---------------------------------------------------------------- checkouts

  /**
   * POST /checkouts. Resolves the checkout id and the business it belongs to. `caller.business`
   * is the business a secret or restricted key acts as (null for a public caller): another
   * business's payment code is then payment_not_found, as for an unknown code.
   */
  async openCheckout(input: OpenCheckoutInput, caller: { business: ActingBusiness | null; loadBusiness: (id: string) => Promise<ActingBusiness | null> }, context: CommandContext = {}): Promise<{ checkoutId: string; businessId: string }> {
    if (input.link_code !== undefined) throw new PaymentDomainError('link_not_found', 'No active link with this code.', 'link_code');
    if (input.payment_code === undefined) throw new PaymentDomainError('invalid_request', 'Send payment_code (or link_code).', 'payment_code');
    const found = await this.lookup.paymentIdByCode(input.payment_code);
    if (!found || (caller.business !== null && caller.business.id !== found.businessId)) throw new PaymentDomainError('payment_not_found', 'No payment with this code.', 'payment_code');
    const business = await caller.loadBusiness(found.businessId);
    if (!business) throw new PaymentDomainError('payment_not_found', 'No payment with this code.', 'payment_code');
    this.assertActive(business);
    const rail = input.rail ?? 'crypto';
    if (rail !== 'crypto' && rail !== 'card') throw new PaymentDomainError('invalid_request', 'rail must be crypto or card.', 'rail');
    if (rail === 'card') throw new PaymentDomainError('rail_unavailable', 'This business does not accept cards.', 'rail');
    if (input.asset === undefined) throw new PaymentDomainError('invalid_request', 'asset is required for a crypto checkout.', 'asset');
    if (!isAssetCode(input.asset)) throw new PaymentDomainError('invalid_request', 'asset must be one of USDC, USDT, BTC, ETH, SOL.', 'asset');
    if (input.network === undefined) throw new PaymentDomainError('invalid_request', 'network is required for a crypto checkout.', 'network');
    if (!isNetworkId(input.network)) throw new PaymentDomainError('invalid_request', 'network is not a supported network.', 'network');
    const asset: AssetCode = input.asset;
    const network: NetworkId = input.network;
    if (input.email !== undefined && !isValidEmail(input.email)) throw new PaymentDomainError('invalid_email', 'email is not a valid e-mail address.', 'email');
    if (input.country !== undefined && !/^[A-Z]{2}$/.test(input.country)) throw new PaymentDomainError('invalid_request', 'country must be a two-letter code (ISO 3166-1 alpha-2, upper case).', 'country');
    let simulate: Exclude<SimulatedTransfer, 'late'> | null = null;
    if (input.simulate !== undefined) {
      if (input.simulate === 'late') throw new PaymentDomainError('invalid_request', 'simulate late is only for mark-sent (it needs an ended quote).', 'simulate');
      if (!['exact', 'underpaid', 'overpaid', 'wrong_network'].includes(input.simulate)) throw new PaymentDomainError('invalid_request', 'simulate must be exact, underpaid, overpaid or wrong_network.', 'simulate');
      if (!business.simulated) throw new PaymentDomainError('invalid_request', 'simulate is for simulated businesses only.', 'simulate');
      simulate = input.simulate as Exclude<SimulatedTransfer, 'late'>;
    }
    const paymentId = found.paymentId;
    const payment = await this.streams.payment(paymentId);
    if (payment.status === 'none') throw new PaymentDomainError('payment_not_found', 'No payment with this code.', 'payment_code');
    const now = await this.now(business.id);
    const rate = this.rates.rate(asset, payment.currency);
    if (rate === null) throw new PaymentDomainError('asset_unavailable', `${asset} cannot be quoted in ${payment.currency}.`, 'asset');
    const checkoutId = newId('chk');
    // The payment's refusals first (payment_paid, payment_canceled, payment_expired, in flight,
    // asset_unavailable): a checkout is opened only for a payment that can take it.
    decidePayment({ type: 'SelectMethod', checkoutId, rail: 'crypto', asset, network, rateMinorPerCoin: rate, quoteEndsAt: now.toISOString() }, payment, { now });

    let replaces: string | null = null;
    if (input.replaces !== undefined) {
      const replaced = await this.streams.checkout(input.replaces);
      if (replaced.status === 'none' || replaced.paymentId !== paymentId) throw new PaymentDomainError('invalid_request', 'replaces must name a checkout of the same payment.', 'replaces');
      replaces = replaced.id;
      const sameChoice = replaced.asset === asset && replaced.network === network && !replaced.remainder;
      const live = replaced.status === 'open' && Date.parse(replaced.expiresAt) - now.getTime() > REMAINDER_REUSE_MS;
      if (sameChoice && live) return { checkoutId: replaced.id, businessId: business.id };
    }
    const command: OpenCryptoCheckout = {
      type: 'OpenCheckout',
      checkoutId,
      paymentId,
      linkId: payment.linkId,
      rail: 'crypto',
      simulated: business.simulated,
      asset,
      network,
      address: simulatedDepositAddress(business.id, checkoutId, network),
      rateMinorPerCoin: rate,
      currency: payment.currency,
      priceMinor: payment.amount,
      feePayer: payment.feePayer,
      feeRateBps: payment.feeRateBps,
      remainder: null,
      quoteTtlMs: this.options.quoteTtlMs,
      details: {
        business_id: business.id,
        email: input.email ?? payment.details.customer_email ?? null,
        country: input.country ?? null,
        success_url: payment.details.success_url ?? null,
        replaces,
        simulate,
      },
    };
    await this.run({ target: 'checkout', id: checkoutId }, command, { now, metadata: metadataFor(context) });
    return { checkoutId, businessId: business.id };
  }

  async cancelCheckout(checkoutId: string, context: CommandContext = {}, actingFor: ActingFor = null): Promise<OpenCheckoutState> {
    return this.onCheckout(checkoutId, () => ({ type: 'CancelCheckout' }), context, actingFor);
  }

  async supersedeCheckout(checkoutId: string, context: CommandContext = {}, actingFor: ActingFor = null): Promise<OpenCheckoutState> {
    return this.onCheckout(checkoutId, () => ({ type: 'SupersedeCheckout' }), context, actingFor);
  }

  async claimCheckout(checkoutId: string, input: { tx_hash: string; email?: string }, context: CommandContext = {}, actingFor: ActingFor = null): Promise<OpenCheckoutState> {
    const checkout = await this.visibleCheckout(checkoutId, actingFor);
    if (input.email !== undefined && !isValidEmail(input.email)) throw new PaymentDomainError('invalid_email', 'email is not a valid e-mail address.', 'email');
    const payment = await this.streams.payment(checkout.paymentId);
    const paymentSucceeded = payment.status === 'succeeded';
    const paymentClaimTxHash = payment.status === 'needs_review' ? payment.claimTxHash : null;
    return this.onCheckout(checkoutId, () => ({ type: 'ClaimCheckout', txHash: input.tx_hash, email: input.email ?? null, paymentSucceeded, paymentClaimTxHash }), context, actingFor);
  }

  async markSent(checkoutId: string, simulate: SimulatedTransfer, context: CommandContext = {}, actingFor: ActingFor = null): Promise<OpenCheckoutState> {
    return this.onCheckout(
      checkoutId,
      (state) => {
        const txHash = simulatedTxHash(state.network);
        return { type: 'MarkSent', simulate, txHash, fromAddress: simulatedSenderAddress(state.network, txHash) };
      },
      context,
      actingFor,
    );
  }

  /** The checkout's state, or not_found when there is none or it belongs to another business than the one the caller acts as. */
  private async visibleCheckout(checkoutId: string, actingFor: ActingFor): Promise<OpenCheckoutState> {
    const checkout = await this.streams.checkout(checkoutId);
    if (checkout.status === 'none' || (actingFor !== null && checkout.businessId !== actingFor)) throw new PaymentDomainError('not_found', `No checkout ${checkoutId}.`);
    return checkout;
  }

  private async onCheckout(
    checkoutId: string,
    command: (state: OpenCheckoutState) => Parameters<PaymentStreams['decideCheckout']>[1],
    context: CommandContext,
    actingFor: ActingFor,
  ): Promise<OpenCheckoutState> {
    const checkout = await this.visibleCheckout(checkoutId, actingFor);
    const now = await this.now(checkout.businessId ?? undefined);
    const state = await this.run({ target: 'checkout', id: checkoutId }, command(checkout), { now, metadata: metadataFor(context) });
    return state as OpenCheckoutState;
  }

  // ---------------------------------------------------------------- test clock and timers

  /** Moves a simulated business's clock and fires everything due by then, in due order. */
  async advanceClock(business: ActingBusiness, seconds: number): Promise<{ now: Date; fired: number }> {
    if (!business.simulated) throw new PaymentDomainError('test_mode_unavailable', 'Only a simulated business has a test clock.');
    const now = await this.timers.advanceClock(business.id, seconds);
    const fired = await this.fireDue(business.id);
    return { now, fired };
  }

  /**
   * Fires the business's due timers one at a time, oldest first, including those the firing
   * itself schedules already due (an arrival's confirmations). A due timer another worker holds
   * is waited for (bounded), so the caller sees its effects too. Then waits until the read models
   * have every event those timers appended — by their positions, never the visible head (on
   * PostgreSQL an unrelated open transaction can hold the visible head behind them).
   */
  async fireDue(businessId: string, deadlineMs = 10_000): Promise<number> {
    const deadline = Date.now() + deadlineMs;
    let fired = 0;
    let last: LogPosition | null = null;
    const firedElsewhere = new Set<string>();
    for (;;) {
      const [timer] = await this.timers.claimDue(1, 30_000, Object.values(TIMER_KINDS), businessId);
      if (timer) {
        try {
          last = later(last, await this.fire(timer));
          await this.timers.markFired(timer.id);
          fired++;
        } catch (error) {
          await this.timers.markFailed(timer.id, error instanceof Error ? `${error.name}: ${error.message}` : String(error), new Date(Date.now() + 1000), timer.attempts);
          throw error;
        }
        continue;
      }
      const due = await this.timers.dueTimers(businessId);
      if (due.length === 0 || Date.now() > deadline) break;
      for (const t of due) if (t.leased) firedElsewhere.add(`${t.kind}|${t.subject}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // what other workers' timers appended: the last events of their streams and of the payments behind them
    for (const key of firedElsewhere) {
      const subject = key.slice(key.indexOf('|') + 1);
      const paymentId = subject.startsWith('chk_') ? await this.paymentOf(subject) : subject;
      for (const stream of [subject.startsWith('chk_') ? CHECKOUT_STREAM.stream(subject) : null, paymentId ? PAYMENT_STREAM.stream(paymentId) : null]) {
        if (stream) last = later(last, await this.lastPosition(stream));
      }
    }
    if (last) await this.readModels.waitFor(last, this.options.readYourWritesTimeoutMs ?? 5000);
    return fired;
  }

  private async paymentOf(checkoutId: string): Promise<string | null> {
    const state = await this.streams.checkout(checkoutId);
    return state.status === 'none' ? null : state.paymentId;
  }

  private async lastPosition(stream: string): Promise<LogPosition | null> {
    try {
      const [event] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
      return event?.position ?? null;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
  }

  /** The handler of every payment timer kind (the worker's TimerRunner and fireDue call it). */
  async fire(timer: Timer): Promise<LogPosition | null> {
    const now = timer.dueAt;
    const options: DecideOptions = { now, eventId: (i) => uuidv5(`timer|${timer.id}#${i}`), metadata: { causationId: `timer:${timer.id}`, actor: SYSTEM_ACTOR } };
    switch (timer.kind) {
      case TIMER_KINDS.quoteExpiry:
        return this.runSettled({ target: 'checkout', id: timer.subject }, { type: 'ExpireCheckout' }, options);
      case TIMER_KINDS.simulatedArrival: {
        const checkout = await this.streams.checkout(timer.subject);
        // only the quote on screen receives the simulated transfer (§4 supersede)
        if (checkout.status !== 'open' || checkout.superseded) return null;
        const txHash = simulatedTxHash(checkout.network, timer.id);
        return this.runSettled(
          { target: 'checkout', id: timer.subject },
          { type: 'MarkSent', simulate: checkout.simulate ?? 'exact', txHash, fromAddress: simulatedSenderAddress(checkout.network, txHash) },
          options,
        );
      }
      case TIMER_KINDS.confirmation: {
        const payload = timer.payload as { tx_hash: string; current: number };
        return this.runSettled({ target: 'checkout', id: timer.subject }, { type: 'RecordConfirmations', txHash: payload.tx_hash, current: payload.current }, options);
      }
      case TIMER_KINDS.paymentExpiry:
        return this.runSettled({ target: 'payment', id: timer.subject }, { type: 'ExpirePayment' }, options);
      default:
        throw new Error(`no handler for timer kind ${timer.kind}`);
    }
  }

  private async runSettled(target: Target, command: unknown, options: DecideOptions): Promise<LogPosition | null> {
    try {
      return (await this.runNoWait(target, command, options)).position;
    } catch (error) {
      // a timer's command refused by the rules (the checkout moved on meanwhile) is an answer, not a fault
      if (error instanceof PaymentDomainError) return null;
      throw error;
    }
  }

  // ---------------------------------------------------------------- the machinery

  /** Decides a command, settles its consequences and waits for the read models. Resolves the stream's state. */
  private async run(target: Target, command: unknown, options: DecideOptions): Promise<PaymentState | CheckoutState> {
    const { state, position } = await this.runNoWait(target, command, options);
    if (position) await this.readModels.waitFor(position, this.options.readYourWritesTimeoutMs ?? 5000);
    return state;
  }

  private async runNoWait(target: Target, command: unknown, options: DecideOptions): Promise<{ state: PaymentState | CheckoutState; position: LogPosition | null }> {
    const decided =
      target.target === 'payment'
        ? await this.streams.decidePayment(target.id, command as Parameters<PaymentStreams['decidePayment']>[1], options)
        : await this.streams.decideCheckout(target.id, command as Parameters<PaymentStreams['decideCheckout']>[1], options);
    const settled = await this.settle(decided.appended);
    return { state: decided.state, position: later(decided.position, settled.position) };
  }

  /**
   * Runs the process manager on new events until nothing more happens: each event's reactions
   * are decided on their streams with deterministic event ids (so the worker's backstop running
   * the same reactions appends nothing), and each event's timers are scheduled.
   */
  async settle(appended: readonly AppendedEvent[]): Promise<SettleResult> {
    const queue = [...appended];
    let position: LogPosition | null = null;
    const done: string[] = [];
    while (queue.length > 0) {
      const next = queue.shift()!;
      done.push(next.eventId);
      await this.scheduleTimers(next);
      const reactions = react(next.event, next.aggregate === 'payment' ? { eventId: next.eventId, payment: next.before as PaymentState } : { eventId: next.eventId, checkout: next.before as CheckoutState });
      for (const reaction of reactions) {
        const options: DecideOptions = {
          now: new Date(next.occurredAt),
          eventId: (i) => reactionEventId(reaction.id, i),
          metadata: { causationId: reaction.causationId, correlationId: next.correlationId ?? undefined, actor: SYSTEM_ACTOR },
        };
        try {
          const decided = await this.decideReaction(reaction, next, options);
          position = later(position, decided.position);
          queue.push(...decided.appended);
        } catch (error) {
          if (!(error instanceof PaymentDomainError)) throw error;
          // a decision, not a fault (0009): a checkout whose payment refused it fails with the reason
          if (reaction.target === 'payment' && reaction.command.type === 'SelectMethod') {
            const failed = await this.streams.decideCheckout(reaction.command.checkoutId, { type: 'FailCheckout', failureCode: error.code }, { ...options, eventId: (i) => reactionEventId(`${reaction.id}|refused`, i) });
            position = later(position, failed.position);
            queue.push(...failed.appended);
          }
        }
      }
    }
    for (const id of done) this.settledHere.add(id);
    while (this.settledHere.size > 100_000) this.settledHere.delete(this.settledHere.values().next().value as string);
    return { position };
  }

  /** True when this process already settled the event (the backstop can skip it). */
  settledInThisProcess(eventId: string): boolean {
    return this.settledHere.has(eventId);
  }

  private async decideReaction(reaction: Reaction, cause: AppendedEvent, options: DecideOptions) {
    switch (reaction.target) {
      case 'payment':
        return this.streams.decidePayment(reaction.paymentId, reaction.command, options);
      case 'checkout':
        return this.streams.decideCheckout(reaction.checkoutId, reaction.command, options);
      case 'open_checkout': {
        const payment = cause.after as LivePaymentState;
        const businessId = payment.details.business_id ?? 'unknown';
        const command: OpenCryptoCheckout = {
          ...reaction.command,
          address: simulatedDepositAddress(businessId, reaction.checkoutId, reaction.command.network),
          simulated: payment.details.mode === 'test',
          quoteTtlMs: this.options.quoteTtlMs,
        };
        return this.streams.decideCheckout(reaction.checkoutId, command, options);
      }
    }
  }

  private async scheduleTimers(appended: AppendedEvent): Promise<void> {
    const timers: ScheduleTimer[] =
      appended.aggregate === 'payment'
        ? timersForPaymentEvent(appended.event as PaymentEvent, appended.after as PaymentState)
        : timersForCheckoutEvent(appended.event as CheckoutEvent, appended.after as CheckoutState, appended.occurredAt);
    for (const timer of timers) await this.timers.schedule(timer);
  }

  private async owned(business: ActingBusiness, paymentId: string): Promise<LivePaymentState> {
    const state = /^pmt_[A-Za-z0-9]{1,64}$/.test(paymentId) ? await this.streams.payment(paymentId) : ({ status: 'none' } as PaymentState);
    if (state.status === 'none' || state.details.business_id !== business.id) throw new PaymentDomainError('not_found', `No payment ${paymentId}.`);
    return state;
  }

  private assertActive(business: ActingBusiness): void {
    if (business.status === 'suspended') throw new PaymentDomainError('business_suspended', 'The business is suspended.');
  }

  private async now(businessId?: string): Promise<Date> {
    return this.timers.clock.now(businessId);
  }

  private metadata(context: CommandContext) {
    return metadataFor(context);
  }
}

type Target = { target: 'payment' | 'checkout'; id: string };

function later(a: LogPosition | null, b: LogPosition | null): LogPosition | null {
  if (!a) return b;
  if (!b) return a;
  return comparePositions(a, b) >= 0 ? a : b;
}

function isHttpUrl(value: string): boolean {
  if (value.length > 2048) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

