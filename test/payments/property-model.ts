import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { AssetCode, NetworkId, assetOn, base58Encode, otherEvmNetworksCarrying } from '../../libs/chains/src';
import { formatCryptoAmount, parseCryptoAmount } from '../../libs/money/src';
import {
  CheckoutEvent,
  CheckoutState,
  CheckoutStatus,
  LivePaymentState,
  CryptoCheckoutState,
  PaymentDomainError,
  PaymentEvent,
  PaymentStatus,
  Reaction,
  decidePayment,
  evolveCheckout,
  evolvePayment,
  initialCheckoutState,
  initialPaymentState,
} from '../../libs/payments/src/domain';
import { Harness } from './harness';

/**
 * Helpers of the property-based test of the pure payment domain (test/payments/property.spec.ts):
 * the step generators, a driver that plays a step on the in-memory harness the way the HTTP
 * handlers and the timers would, and the invariants, each computed from the stored events and
 * never from the deciders' own state.
 */

export const T0 = new Date('2025-01-01T00:00:00.000Z');
export const PAYMENT_ID = 'pmt_prop';
const MIN = 60_000;
const QUOTE_TTL_MS = 15 * MIN;

/** Minor USD per whole coin (fixed). */
export const RATES: Record<AssetCode, number> = { USDC: 100, USDT: 100, ETH: 300_000, SOL: 15_000, BTC: 6_000_000 };

/** Every (asset, network) the registry supports (PAYMENTS_PROPERTY_ASSET=USDC keeps one coin's, to explore past a cross-coin failure). */
const ALL_PAIRS: readonly { asset: AssetCode; network: NetworkId }[] = [
  { asset: 'USDC', network: 'ethereum' },
  { asset: 'USDC', network: 'polygon' },
  { asset: 'USDC', network: 'base' },
  { asset: 'USDC', network: 'arbitrum' },
  { asset: 'USDC', network: 'solana' },
  { asset: 'USDT', network: 'ethereum' },
  { asset: 'USDT', network: 'polygon' },
  { asset: 'USDT', network: 'arbitrum' },
  { asset: 'USDT', network: 'solana' },
  { asset: 'ETH', network: 'ethereum' },
  { asset: 'ETH', network: 'base' },
  { asset: 'ETH', network: 'arbitrum' },
  { asset: 'BTC', network: 'bitcoin' },
  { asset: 'SOL', network: 'solana' },
];
export const PAIRS = process.env.PAYMENTS_PROPERTY_ASSET ? ALL_PAIRS.filter((p) => p.asset === process.env.PAYMENTS_PROPERTY_ASSET) : ALL_PAIRS;

const decimalsOf = (asset: AssetCode, network: NetworkId): number => assetOn(asset, network).decimals;

// ------------------------------------------------------------------------------------------------
// Steps

export interface Setup {
  amount: number;
  feePayer: 'business' | 'customer';
  feeRateBps: number;
  link: boolean;
  /** Minutes after T0, or null (no expiry). */
  expiresInMin: number | null;
  /** The checkout the customer opens first (every run starts with one). */
  firstPair: number;
}

export type SimulateKind = 'exact' | 'underpaid' | 'overpaid' | 'wrong_network' | 'late';

export type Step =
  | { kind: 'open'; pair: number; again?: boolean }
  | { kind: 'markSent'; pick: number; relevant: boolean; simulate: SimulateKind; retry: boolean; thenConfirm: boolean }
  | { kind: 'detect'; pick: number; relevant: boolean; otherNetwork: boolean; percent: number; thenConfirm: boolean; sameTx: boolean }
  | { kind: 'confirm'; pick: number; relevant: boolean; full: boolean; partial: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'cancelCheckout'; pick: number; relevant: boolean }
  | { kind: 'supersede'; pick: number; relevant: boolean }
  | { kind: 'claim'; pick: number; relevant: boolean; bytes: number[]; upper: boolean; reuse: boolean }
  | { kind: 'requestRemainder'; wait: boolean }
  | { kind: 'accept'; transactionFeeMinor: number }
  | { kind: 'cancelPayment' };

export const setupArb: fc.Arbitrary<Setup> = fc.record({
  amount: fc.oneof(fc.integer({ min: 100, max: 50_000 }), fc.integer({ min: 100, max: 100_000_000 })),
  feePayer: fc.constantFrom('business' as const, 'customer' as const),
  feeRateBps: fc.oneof(fc.constant(100), fc.integer({ min: 0, max: 1_000 })),
  link: fc.boolean(),
  expiresInMin: fc.option(fc.integer({ min: 5, max: 240 }), { nil: null, freq: 2 }),
  firstPair: fc.nat({ max: ALL_PAIRS.length - 1 }),
});

/** Which checkout a step acts on: an index into the checkouts the step is meant for (`relevant`) or into all of them. */
const pick = fc.nat({ max: 7 });
const relevant = fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });

export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('open' as const),
      pair: fc.nat({ max: ALL_PAIRS.length - 1 }),
      /** The customer opens the latest checkout's coin and network again (a quote of the same coin set aside; two checkouts one transaction may pay). */
      again: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('markSent' as const),
      pick,
      relevant,
      simulate: fc.oneof(
        { weight: 3, arbitrary: fc.constant<SimulateKind>('underpaid') },
        { weight: 2, arbitrary: fc.constantFrom<SimulateKind>('exact', 'overpaid') },
        { weight: 1, arbitrary: fc.constantFrom<SimulateKind>('wrong_network', 'late') },
      ),
      retry: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      /** The simulated chain then confirms the checkout's transfers at once (as its block timer would). */
      thenConfirm: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  {
    // Beyond mark-sent: a real transfer a chain watcher saw (0009 addendum: a second transfer while confirming counts).
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('detect' as const),
      pick,
      relevant,
      otherNetwork: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      percent: fc.oneof(fc.constantFrom(10, 50, 90, 100, 110), fc.integer({ min: 1, max: 150 })),
      thenConfirm: fc.boolean(),
      /** The transaction of an earlier transfer to another checkout on the network: one transaction paying two checkouts (0025 addendum, 2026-11-28, third). */
      sameTx: fc.boolean(),
    }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('confirm' as const), pick, relevant, full: fc.boolean(), partial: fc.integer({ min: 1, max: 100 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1_000, max: 20 * MIN }) }, { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 4 * 60 * MIN }) }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancelCheckout' as const), pick, relevant }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('supersede' as const), pick, relevant }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('claim' as const),
      pick,
      relevant,
      bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 64, maxLength: 64 }),
      upper: fc.boolean(),
      reuse: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('requestRemainder' as const), wait: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('accept' as const), transactionFeeMinor: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 500 })) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'cancelPayment' as const }) },
);

// ------------------------------------------------------------------------------------------------
// Driver

export class PropertyFailure extends Error {
  override name = 'PropertyFailure';
}

export interface Outcome {
  step: string;
  result: string;
}

/** Hashes that fit the network (EVM 0x+64 hex, Bitcoin 64 hex, Solana base58 of 64 bytes). */
export function hashFor(network: NetworkId, bytes: Uint8Array, upper = false): string {
  if (network === 'solana') return base58Encode(bytes.subarray(0, 64));
  const hex = Buffer.from(bytes.subarray(0, 32)).toString('hex');
  const cased = upper ? hex.toUpperCase() : hex;
  return network === 'bitcoin' ? cased : '0x' + cased;
}

const seededBytes = (label: string): Uint8Array => createHash('sha512').update(label).digest();

/** The run: one payment, the checkouts opened for it, refusals recorded by step kind and code. */
export class Run {
  readonly h = new Harness(T0);
  readonly outcomes: Outcome[] = [];
  readonly refusals = new Map<string, number>();
  /** Stored events whose amounts were checked already (stored events never change). */
  readonly checked = new WeakSet<object>();
  private openCount = 0;
  private remainderCount = 0;
  private txCount = 0;
  private readonly lastTx = new Map<string, string>();
  /** Every transfer's transaction, with its network and checkout, in the order sent. */
  private readonly sent: { network: NetworkId; checkoutId: string; txHash: string }[] = [];
  private readonly claims: string[] = [];

  constructor(readonly setup: Setup) {}

  checkoutIds(): string[] {
    return [...this.h.checkouts.keys()].filter((id) => this.h.checkouts.get(id)!.length > 0);
  }

  create(): void {
    const s = this.setup;
    this.exec('create', () =>
      this.h.payment(PAYMENT_ID, {
        type: 'CreatePayment',
        paymentId: PAYMENT_ID,
        amount: s.amount,
        currency: 'USD',
        feePayer: s.feePayer,
        feeRateBps: s.feeRateBps,
        linkId: s.link ? 'lnk_prop' : null,
        expiresAt: s.expiresInMin === null ? null : new Date(T0.getTime() + s.expiresInMin * MIN).toISOString(),
      }),
    );
  }

  private payment(): LivePaymentState {
    const p = this.h.paymentState(PAYMENT_ID);
    if (p.status === 'none') throw new PropertyFailure('the payment is gone');
    return p;
  }

  private checkout(id: string): CryptoCheckoutState {
    const c = this.h.checkoutState(id);
    if (c.status === 'none') throw new PropertyFailure(`checkout ${id} is gone`);
    if (c.rail !== 'crypto') throw new PropertyFailure(`checkout ${id} is not a crypto checkout`);
    return c;
  }

  /** The n-th checkout among those `fits` (when `relevant` and any fits), else among all. */
  private picked(n: number, relevant: boolean, fits: (c: CryptoCheckoutState) => boolean): string | null {
    const all = this.checkoutIds();
    const fitting = relevant ? all.filter((id) => fits(this.checkout(id))) : [];
    const ids = fitting.length > 0 ? fitting : all;
    return ids.length === 0 ? null : ids[n % ids.length];
  }

  /**
   * Runs one command. A PaymentDomainError before anything was appended is a refusal (expected);
   * one after the command's own events were appended came from a reaction (the harness stops
   * settling there, leaving the streams disagreeing): a failure. Anything else is a failure.
   */
  private exec(label: string, fn: () => unknown): void {
    const before = this.h.log.length;
    try {
      fn();
      const added = this.h.log.slice(before).map((e) => e.stored.event.type);
      this.outcomes.push({ step: label, result: added.length === 0 ? 'no events' : added.join(',') });
    } catch (error) {
      if (error instanceof PaymentDomainError) {
        if (this.h.log.length === before) {
          const key = `${label.split(' ')[0]}:${error.code}`;
          this.refusals.set(key, (this.refusals.get(key) ?? 0) + 1);
          this.outcomes.push({ step: label, result: `refused ${error.code}` });
          return;
        }
        const added = this.h.log.slice(before).map((e) => e.stored.event.type);
        this.outcomes.push({ step: label, result: `${added.join(',')} then a REACTION was refused: ${error.code} (${error.message})` });
        throw new PropertyFailure(`a reaction was refused with ${error.code} after ${label} appended ${added.join(',')}: ${error.message}`);
      }
      this.outcomes.push({ step: label, result: `THREW ${(error as Error).message}` });
      throw error;
    }
  }

  play(step: Step): void {
    switch (step.kind) {
      case 'open': {
        const latest = step.again ? this.checkoutIds().at(-1) : undefined;
        const { asset, network } = latest !== undefined ? this.checkout(latest) : PAIRS[step.pair % PAIRS.length];
        const checkoutId = `chk_${++this.openCount}`;
        const label = `open ${checkoutId} ${asset}/${network}`;
        // POST /checkouts asks the payment first (commands/open-checkout/open-checkout.handler.ts): a checkout is opened only for a payment that can take it.
        try {
          decidePayment({ type: 'SelectMethod', checkoutId, rail: 'crypto', asset, network, rateMinorPerCoin: RATES[asset], quoteEndsAt: this.h.now.toISOString() }, this.payment(), { now: this.h.now });
        } catch (error) {
          if (!(error instanceof PaymentDomainError)) throw error;
          const key = `open:${error.code}`;
          this.refusals.set(key, (this.refusals.get(key) ?? 0) + 1);
          this.outcomes.push({ step: label, result: `refused ${error.code} (payment)` });
          return;
        }
        const p = this.payment();
        this.exec(label, () =>
          this.h.checkout(checkoutId, {
            type: 'OpenCheckout',
            checkoutId,
            paymentId: PAYMENT_ID,
            linkId: p.linkId,
            rail: 'crypto',
            simulated: true,
            asset,
            network,
            address: 'addr_' + checkoutId,
            rateMinorPerCoin: RATES[asset],
            currency: 'USD',
            priceMinor: p.amount,
            feePayer: p.feePayer,
            feeRateBps: p.feeRateBps,
            remainder: null,
            quoteTtlMs: QUOTE_TTL_MS,
          }),
        );
        return;
      }
      case 'markSent': {
        const id = this.picked(step.pick, step.relevant, (c) => c.status === 'open' || c.status === 'awaiting_customer' || (step.simulate === 'late' && c.status === 'expired'));
        if (id === null) return this.skip(step.kind);
        const c = this.checkout(id);
        const previous = this.lastTx.get(id);
        const txHash = step.retry && previous ? previous : hashFor(c.network, seededBytes(`tx#${++this.txCount}`));
        this.lastTx.set(id, txHash);
        this.sent.push({ network: c.network, checkoutId: id, txHash });
        this.exec(`markSent ${id} ${step.simulate}${step.retry && previous ? ' (same hash)' : ''}`, () => this.h.checkout(id, { type: 'MarkSent', simulate: step.simulate, txHash }));
        if (step.thenConfirm) this.confirmAll(id, true, 100);
        return;
      }
      case 'detect': {
        // a completed checkout, or one in review, takes a further transfer too (0025 addenda, 2026-11-28)
        const takes = (id: string) => ['open', 'awaiting_customer', 'confirming', 'completed', 'needs_review'].includes(this.checkout(id).status);
        const networkOf = (id: string) => {
          const c = this.checkout(id);
          return (step.otherNetwork ? otherEvmNetworksCarrying(c.asset, c.network)[0] : undefined) ?? c.network;
        };
        // One transaction paying two checkouts (0025 addendum, 2026-11-28, third): `sameTx` pays this
        // checkout and another on the network in one transaction — whatever the other's status: the
        // chain does not ask (a first checkout whose quote ended and its remainder, say) — or else this
        // checkout in the latest transaction that paid another (its output reported later).
        const taking = this.checkoutIds().filter(takes);
        const pairs = step.sameTx ? taking.flatMap((a) => this.checkoutIds().filter((b) => b !== a && networkOf(b) === networkOf(a)).map((b) => [a, b] as const)) : [];
        const earlier = (id: string) => {
          const c = this.checkout(id);
          return [...this.sent].reverse().find((t) => t.network === networkOf(id) && t.checkoutId !== id && !c.transfers.some((own) => own.txHash === t.txHash));
        };
        const joining = step.sameTx && pairs.length === 0 ? taking.filter((id) => earlier(id) !== undefined) : [];
        const [id, partner] = pairs.length > 0 ? pairs[step.pick % pairs.length] : [joining.length > 0 ? joining[step.pick % joining.length] : this.picked(step.pick, step.relevant, (c) => takes(c.id)), undefined];
        if (id === null) return this.skip(step.kind);
        const network = networkOf(id);
        const joined = joining.length > 0 ? earlier(id) : undefined;
        const txHash = joined?.txHash ?? hashFor(network, seededBytes(`tx#${++this.txCount}`));
        for (const to of partner === undefined ? [id] : [id, partner]) {
          const c = this.checkout(to);
          const due = c.expected > c.received ? c.expected - c.received : c.expected;
          const amount = (due * BigInt(step.percent)) / 100n || 1n;
          this.lastTx.set(to, txHash);
          this.sent.push({ network, checkoutId: to, txHash });
          const shared = partner !== undefined ? ' (one transaction paying two checkouts)' : joined ? ` in ${joined.checkoutId}'s transaction` : '';
          this.exec(`detect ${to} ${formatCryptoAmount(amount, c.decimals)} on ${network} (${step.percent}% of due)${shared}`, () =>
            this.h.checkout(to, { type: 'DetectTransfer', txHash, network, amount: formatCryptoAmount(amount, c.decimals) }),
          );
        }
        if (step.thenConfirm) for (const to of partner === undefined ? [id] : [id, partner]) this.confirmAll(to, true, 100);
        return;
      }
      case 'confirm': {
        const id = this.picked(step.pick, step.relevant, (c) => c.transfers.some((t) => t.current < c.confirmations.required));
        if (id === null) return this.skip(step.kind);
        this.confirmAll(id, step.full, step.partial);
        return;
      }
      case 'advance':
        this.advance(step.ms);
        return;
      case 'cancelCheckout': {
        const id = this.picked(step.pick, step.relevant, (c) => c.status === 'open' || c.status === 'awaiting_customer');
        if (id === null) return this.skip(step.kind);
        this.exec(`cancelCheckout ${id}`, () => this.h.checkout(id, { type: 'CancelCheckout' }));
        return;
      }
      case 'supersede': {
        const id = this.picked(step.pick, step.relevant, (c) => c.status === 'open' || c.status === 'awaiting_customer');
        if (id === null) return this.skip(step.kind);
        this.exec(`supersede ${id}`, () => this.h.checkout(id, { type: 'SupersedeCheckout', by: 'customer' }));
        return;
      }
      case 'claim': {
        const id = this.picked(step.pick, step.relevant, (c) => c.status === 'expired' || c.status === 'canceled' || c.reviewReason === 'claimed');
        if (id === null) return this.skip(step.kind);
        const c = this.checkout(id);
        const reused = step.reuse ? this.claims.find((hash) => hashFits(c.network, hash)) : undefined;
        const txHash = reused ?? hashFor(c.network, Uint8Array.from(step.bytes), step.upper);
        this.claims.push(txHash);
        // POST /checkouts/{id}/claim reads whether the payment succeeded (commands/claim-checkout/claim-checkout.handler.ts).
        const payment = this.payment();
        const paymentSucceeded = payment.status === 'succeeded';
        // as the application does: the payment's claim under review, if any
        const paymentClaimTxHash = payment.status === 'needs_review' ? payment.claimTxHash : null;
        this.exec(`claim ${id}${reused ? ' (same hash)' : ''}`, () => this.h.checkout(id, { type: 'ClaimCheckout', txHash, paymentSucceeded, paymentClaimTxHash }));
        return;
      }
      case 'requestRemainder': {
        // The business waits for the live quote to end first (`wait`), or asks at once (remainder_unavailable while it is live).
        const p = this.payment();
        if (step.wait && p.status === 'underpaid' && p.quoteEndsAt !== null && Date.parse(p.quoteEndsAt) > this.h.now.getTime()) {
          this.advance(Date.parse(p.quoteEndsAt) - this.h.now.getTime());
        }
        const checkoutId = `chk_r${++this.remainderCount}`;
        this.exec(`requestRemainder ${checkoutId}`, () => this.h.payment(PAYMENT_ID, { type: 'RequestRemainder', checkoutId, hasCheckoutPage: true }));
        return;
      }
      case 'accept':
        this.exec(`accept fee=${step.transactionFeeMinor}`, () => this.h.payment(PAYMENT_ID, { type: 'AcceptPayment', transactionFeeMinor: step.transactionFeeMinor }));
        return;
      case 'cancelPayment':
        this.exec('cancelPayment', () => this.h.payment(PAYMENT_ID, { type: 'CancelPayment' }));
        return;
    }
  }

  /** The chain confirms every transfer of the checkout, to `required` or to `partial`% of it. */
  private confirmAll(id: string, full: boolean, partial: number): void {
    const c = this.checkout(id);
    const required = c.confirmations.required;
    const current = full ? required : Math.max(1, Math.ceil((partial * required) / 100));
    for (const t of c.transfers) {
      this.exec(`confirm ${id} ${t.txHash.slice(0, 10)} ${current}/${required}`, () => this.h.checkout(id, { type: 'RecordConfirmations', txHash: t.txHash, current }));
    }
    if (c.transfers.length === 0) this.outcomes.push({ step: `confirm ${id}`, result: 'no transfer' });
  }

  private skip(kind: string): void {
    this.outcomes.push({ step: kind, result: 'no checkout yet' });
  }

  /**
   * Moves the clock by `ms`, firing the timers due on the way as the timer runner does: one at a
   * time in due order, each decided at its due time (quote expiry at a checkout's expires_at,
   * payment expiry at the payment's expires_at), once per advance; a timer that decided nothing
   * (a confirming checkout, a payment with a transfer in flight) fires again at later advances
   * while it is due, as a re-armed timer would.
   */
  advance(ms: number): void {
    const target = new Date(this.h.now.getTime() + ms);
    const fired = new Set<string>();
    for (;;) {
      const due: { at: number; key: string; fire: () => void; label: string }[] = [];
      for (const id of this.checkoutIds()) {
        const c = this.checkout(id);
        if (c.status !== 'open' && c.status !== 'awaiting_customer') continue;
        const at = Date.parse(c.expiresAt);
        const key = `chk|${id}|${c.expiresAt}`;
        if (at <= target.getTime() && !fired.has(key)) due.push({ at, key, label: `timer ExpireCheckout ${id}`, fire: () => this.h.checkout(id, { type: 'ExpireCheckout' }) });
      }
      const p = this.payment();
      if (p.status === 'pending' && p.expiresAt !== null) {
        const at = Date.parse(p.expiresAt);
        const key = `pmt|${p.expiresAt}`;
        if (at <= target.getTime() && !fired.has(key)) due.push({ at, key, label: 'timer ExpirePayment', fire: () => this.h.payment(PAYMENT_ID, { type: 'ExpirePayment' }) });
      }
      if (due.length === 0) break;
      due.sort((a, b) => a.at - b.at || a.key.localeCompare(b.key));
      const next = due[0];
      fired.add(next.key);
      if (next.at > this.h.now.getTime()) this.h.at(new Date(next.at));
      this.exec(`${next.label} @${this.clock()}`, next.fire);
    }
    this.h.at(target);
    this.outcomes.push({ step: `advance ${Math.round(ms / 1000)}s`, result: `now ${this.clock()}` });
  }

  clock(): string {
    return `T0+${Math.round((this.h.now.getTime() - T0.getTime()) / 1000)}s`;
  }

  trace(): string {
    return this.outcomes.map((o, i) => `  ${String(i).padStart(3)} ${o.step} → ${o.result}`).join('\n');
  }
}

function hashFits(network: NetworkId, hash: string): boolean {
  if (network === 'solana') return !/^(0x)?[0-9a-fA-F]{64}$/.test(hash);
  if (network === 'bitcoin') return /^[0-9a-fA-F]{64}$/.test(hash);
  return /^0x[0-9a-fA-F]{64}$/.test(hash);
}

// ------------------------------------------------------------------------------------------------
// Invariants

/** Allowed status moves, one stored event at a time (staying put is always allowed). */
export const PAYMENT_EDGES: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ['underpaid', 'needs_review', 'succeeded', 'failed', 'canceled'],
  underpaid: ['succeeded', 'needs_review'],
  needs_review: ['succeeded'],
  succeeded: [],
  failed: [],
  canceled: [],
};

/**
 * Money that reaches a failed or canceled payment is never ignored: a claim (refused with
 * payment_paid only when the payment succeeded — spec §3 claim row, 0009) or a transfer that
 * arrives anyway (late, wrong network; 0011 addendum) puts it in needs_review for the business to
 * refund or accept. Those are the only moves out of failed/canceled: PaymentClaimed or
 * PaymentNeedsReview.
 */
export const PAYMENT_CLAIM_EDGES: Partial<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  failed: ['needs_review'],
  canceled: ['needs_review'],
};

export const CHECKOUT_EDGES: Record<CheckoutStatus, readonly CheckoutStatus[]> = {
  open: ['awaiting_customer', 'confirming', 'completed', 'needs_review', 'expired', 'canceled', 'failed'],
  awaiting_customer: ['confirming', 'completed', 'needs_review', 'expired', 'canceled', 'failed'],
  confirming: ['completed', 'awaiting_customer', 'needs_review'],
  completed: [],
  needs_review: [],
  expired: ['needs_review'],
  canceled: ['needs_review'],
  failed: ['needs_review'],
};

/**
 * The one move out of a checkout's review (0025 addendum, 2026-11-28, second): a checkout in
 * review for a claim alone (CheckoutClaimed, no transfer on another network) that then receives
 * all it asked for on its network completes — the chain settled the claim. Reviews for money
 * that arrived (wrong_network, late) stay for the business.
 */
export const CHECKOUT_CLAIM_EDGES: Partial<Record<CheckoutStatus, readonly CheckoutStatus[]>> = {
  needs_review: ['completed'],
};

/**
 * The move out of a checkout's review when its payment succeeds (0025 addendum, 2026-11-29):
 * CheckoutReviewResolved, `completed` when what it reviewed was counted, `failed` otherwise — and
 * only on a payment that succeeded.
 */
export const CHECKOUT_RESOLVE_EDGES: Partial<Record<CheckoutStatus, readonly CheckoutStatus[]>> = {
  needs_review: ['completed', 'failed'],
};

/** Whether a checkout stream allows the claim edge: claimed, nothing on another network, and completed by CheckoutCompleted with all it asked for. */
function claimSettled(stream: readonly { event: CheckoutEvent }[]): boolean {
  const opened = stream.find((e) => e.event.type === 'CheckoutOpened')?.event;
  if (opened?.type !== 'CheckoutOpened') return false;
  const claimed = stream.some((e) => e.event.type === 'CheckoutClaimed');
  const completedAt = stream.findIndex((e) => e.event.type === 'CheckoutCompleted');
  // on another network before it completed (one after it is listed and changes nothing: 0025 addendum, second)
  const elsewhere = stream.slice(0, completedAt < 0 ? stream.length : completedAt).some((e) => e.event.type === 'CheckoutTransferDetected' && e.event.data.network !== opened.data.network);
  const completed = stream[completedAt]?.event;
  if (!claimed || elsewhere || completed?.type !== 'CheckoutCompleted') return false;
  const decimals = decimalsOf(opened.data.asset, opened.data.network);
  return parseCryptoAmount(completed.data.received_amount, decimals) >= parseCryptoAmount(opened.data.amount, decimals);
}

const PAYMENT_CRYPTO_FIELDS: Partial<Record<PaymentEvent['type'], readonly string[]>> = {
  PaymentMethodSelected: ['expected_amount'],
  PaymentTransferDetected: ['amount'],
  PaymentUnderpaid: ['expected', 'received', 'remaining'],
  PaymentRemainderRequested: ['crypto_amount'],
  PaymentRemainderPaid: ['amount'],
  PaymentSucceeded: ['received_amount', 'overpaid_amount'],
  PaymentTransferCountedAfterSuccess: ['amount', 'received_amount', 'overpaid_amount'],
  PaymentAccepted: ['counted_amount'],
};
const CHECKOUT_CRYPTO_FIELDS: Partial<Record<CheckoutEvent['type'], readonly string[]>> = {
  CheckoutOpened: ['amount'],
  CheckoutTransferDetected: ['amount', 'received_amount', 'remaining_amount', 'overpaid_amount'],
  CheckoutCompleted: ['received_amount', 'overpaid_amount'],
  CheckoutAwaitingCustomer: ['received_amount', 'remaining_amount'],
  CheckoutExpired: ['received_amount'],
};

const fail = (message: string): never => {
  throw new PropertyFailure(message);
};

/** A crypto amount: a canonical decimal string with at most `decimals` decimals → smallest units. */
function units(value: unknown, decimals: number, where: string): bigint {
  if (typeof value !== 'string') return fail(`${where}: a crypto amount must be a decimal string, got ${JSON.stringify(value)}`);
  const m = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(value);
  if (!m) return fail(`${where}: ${JSON.stringify(value)} is not a plain decimal`);
  if ((m[2] ?? '').length > decimals) return fail(`${where}: ${value} has more than ${decimals} decimals`);
  const parsed = parseCryptoAmount(value, decimals);
  if (formatCryptoAmount(parsed, decimals) !== value) fail(`${where}: ${value} is not in canonical form`);
  return parsed;
}

/** Every number in an event is a safe integer (no float near money). */
function integersOnly(value: unknown, where: string): void {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) fail(`${where}: ${value} is not a safe integer`);
  } else if (Array.isArray(value)) value.forEach((v, i) => integersOnly(v, `${where}[${i}]`));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) integersOnly(v, `${where}.${k}`);
}

interface CheckoutFacts {
  asset: AssetCode;
  network: NetworkId;
  decimals: number;
  /**
   * Transfers under review by the checkout's facts: those it put in review (CheckoutNeedsReview
   * with their hash), and every one on another network than its quote's — to a checkout in review
   * or completed it is recorded without a second CheckoutNeedsReview, and is wrong_network all the
   * same (0025 addendum, 2026-11-28, second).
   */
  reviewed: Set<string>;
}

function checkoutFacts(h: Harness): Map<string, CheckoutFacts> {
  const out = new Map<string, CheckoutFacts>();
  for (const [id, stream] of h.checkouts) {
    const opened = stream.find((e) => e.event.type === 'CheckoutOpened');
    if (!opened || opened.event.type !== 'CheckoutOpened') continue;
    const { asset, network } = opened.event.data;
    const reviewed = new Set<string>();
    for (const { event } of stream) {
      if (event.type === 'CheckoutNeedsReview') reviewed.add(event.data.tx_hash);
      if (event.type === 'CheckoutTransferDetected' && event.data.network !== network) reviewed.add(event.data.tx_hash);
    }
    out.set(id, { asset, network, decimals: decimalsOf(asset, network), reviewed });
  }
  return out;
}

/** Checks every invariant on the harness as it is now; `before` are the statuses before the step. */
export function checkInvariants(run: Run, before: Statuses): Statuses {
  const h = run.h;
  const facts = checkoutFacts(h);

  // 1. No two events share an id.
  const ids = new Set<string>();
  for (const { stream, stored } of h.log) {
    if (ids.has(stored.id)) fail(`event id ${stored.id} appears twice (${stream} ${stored.event.type})`);
    ids.add(stored.id);
  }

  // 2. Statuses move along allowed edges, event by event; terminal states stay put.
  const statuses: Statuses = { payment: 'none', checkouts: {} };
  const checkoutNow = new Map<string, CheckoutState>();
  for (const [id, stream] of h.checkouts) {
    let state = initialCheckoutState;
    const settled = claimSettled(stream);
    for (const { event } of stream) {
      const next = evolveCheckout(state, event);
      if (state.status !== 'none' && next.status !== 'none' && next.status !== state.status && !CHECKOUT_EDGES[state.status].includes(next.status)) {
        const claimEdge = event.type === 'CheckoutCompleted' && settled && (CHECKOUT_CLAIM_EDGES[state.status] ?? []).includes(next.status);
        const resolveEdge = event.type === 'CheckoutReviewResolved' && (CHECKOUT_RESOLVE_EDGES[state.status] ?? []).includes(next.status);
        if (!claimEdge && !resolveEdge) fail(`checkout ${id}: ${state.status} → ${next.status} on ${event.type} is not an allowed transition`);
      }
      state = next;
    }
    statuses.checkouts[id] = state.status;
    checkoutNow.set(id, state);
  }
  let pstate = initialPaymentState;
  for (const { event } of h.payments.get(PAYMENT_ID) ?? []) {
    const next = evolvePayment(pstate, event);
    if (pstate.status !== 'none' && next.status !== 'none' && next.status !== pstate.status) {
      const allowed = PAYMENT_EDGES[pstate.status].includes(next.status) || ((event.type === 'PaymentClaimed' || event.type === 'PaymentNeedsReview') && (PAYMENT_CLAIM_EDGES[pstate.status] ?? []).includes(next.status));
      if (!allowed) fail(`payment: ${pstate.status} → ${next.status} on ${event.type} is not an allowed transition`);
    }
    pstate = next;
  }
  statuses.payment = pstate.status;
  // a checkout's review ends only because its payment succeeded, and no review open when the payment
  // succeeds outlives it (0025 addendum, 2026-11-29); one opened after the success (money to refund) stays
  for (const [id, stream] of h.checkouts) {
    if (stream.some((e) => e.event.type === 'CheckoutReviewResolved') && pstate.status !== 'succeeded') fail(`checkout ${id}: its review was resolved on a ${pstate.status} payment`);
  }
  {
    let succeededAt = -1;
    const reviewSince = new Map<string, number>();
    const walked = new Map<string, CheckoutState>();
    for (const [i, { stream, stored }] of h.log.entries()) {
      if (stream === `payment-${PAYMENT_ID}` && stored.event.type === 'PaymentSucceeded' && succeededAt < 0) succeededAt = i;
      if (!stream.startsWith('checkout-')) continue;
      const id = stream.slice('checkout-'.length);
      const was = walked.get(id) ?? initialCheckoutState;
      const next = evolveCheckout(was, stored.event as CheckoutEvent);
      walked.set(id, next);
      if (next.status === 'needs_review' && was.status !== 'needs_review') reviewSince.set(id, i);
    }
    for (const [id, state] of walked) {
      const since = reviewSince.get(id) ?? -1;
      if (state.status === 'needs_review' && succeededAt >= 0 && since < succeededAt) fail(`checkout ${id}: still in review (since log #${since}) after its payment succeeded (log #${succeededAt})`);
    }
  }
  // ... and across the step (several events at once), against the same tables.
  if (before.payment !== 'none' && statuses.payment !== before.payment) {
    const from = before.payment as PaymentStatus;
    const to = statuses.payment as PaymentStatus;
    if (!PAYMENT_EDGES[from].includes(to) && !(PAYMENT_CLAIM_EDGES[from] ?? []).includes(to)) fail(`payment: ${from} → ${to} in one step is not an allowed transition`);
  }
  for (const [id, was] of Object.entries(before.checkouts)) {
    const now = statuses.checkouts[id];
    if (was === 'none' || now === was) continue;
    const claimEdge = claimSettled(h.checkouts.get(id) ?? []) && (CHECKOUT_CLAIM_EDGES[was as CheckoutStatus] ?? []).includes(now as CheckoutStatus);
    const resolveEdge = (h.checkouts.get(id) ?? []).some((e) => e.event.type === 'CheckoutReviewResolved') && (CHECKOUT_RESOLVE_EDGES[was as CheckoutStatus] ?? []).includes(now as CheckoutStatus);
    // a short transfer confirmed after its remainder wait (decision 0009, addendum 2026-11-30): awaiting_customer, ended at once
    const endedAtOnce = was === 'confirming' && now === 'expired' && (h.checkouts.get(id) ?? []).some((e) => e.event.type === 'CheckoutAwaitingCustomer');
    if (!CHECKOUT_EDGES[was as CheckoutStatus].includes(now as CheckoutStatus) && !claimEdge && !resolveEdge && !endedAtOnce) fail(`checkout ${id}: ${was} → ${now} in one step is not an allowed transition`);
  }

  // 3. Amounts in events: crypto strings fit the coin; every number an integer.
  let method: { asset: AssetCode; network: NetworkId; decimals: number; quoted: number } | null = null;
  /** An acceptance counted another coin's quote: amount_received over the quote with the method coin's overpaid_amount null (0025 addendum, 2026-11-29). */
  let otherCoinCounted = false;
  // by checkout and transaction: one transaction may pay two checkouts (0025 addendum, 2026-11-28, third)
  const transfers = new Map<string, { checkoutId: string; hash: string; network: NetworkId; amount: string; review: string | null }>();
  const confirmations = new Map<string, { current: number; required: number }>();
  let overpaidSeen = false;
  for (const [i, stored] of (h.payments.get(PAYMENT_ID) ?? []).entries()) {
    const { event } = stored;
    const where = `payment event #${i} ${event.type}`;
    const fresh = !run.checked.has(stored);
    run.checked.add(stored);
    if (fresh) integersOnly(event.data, where);
    if (event.type === 'PaymentMethodSelected') {
      const d = event.data;
      method = { asset: d.asset, network: d.network, decimals: decimalsOf(d.asset, d.network), quoted: d.quoted_amount };
    }
    const fields = PAYMENT_CRYPTO_FIELDS[event.type] ?? [];
    let decimals: number | null = method?.decimals ?? null;
    if (event.type === 'PaymentTransferDetected' || event.type === 'PaymentRemainderPaid') decimals = facts.get(event.data.checkout_id)?.decimals ?? fail(`${where}: unknown checkout ${event.data.checkout_id}`);
    if (event.type === 'PaymentRemainderRequested') decimals = decimalsOf(event.data.asset, event.data.network);
    for (const field of fields) {
      const value = (event.data as Record<string, unknown>)[field];
      if (value === null && (field === 'overpaid_amount' || field === 'remaining_amount')) continue;
      if (fresh) units(value, decimals ?? fail(`${where}: a crypto amount before any method`), `${where}.${field}`);
    }
    switch (event.type) {
      case 'PaymentTransferDetected':
        transfers.set(`${event.data.checkout_id}|${event.data.tx_hash}`, { checkoutId: event.data.checkout_id, hash: event.data.tx_hash, network: event.data.network, amount: event.data.amount, review: event.data.review });
        break;
      case 'PaymentTransferWithdrawn':
        transfers.delete(`${event.data.checkout_id}|${event.data.tx_hash}`);
        confirmations.delete(`${event.data.checkout_id}|${event.data.tx_hash}`);
        break;
      case 'PaymentConfirmationRecorded': {
        const key = `${event.data.checkout_id}|${event.data.tx_hash}`;
        const seen = confirmations.get(key);
        confirmations.set(key, { current: Math.max(seen?.current ?? 0, event.data.current), required: event.data.required });
        break;
      }
      case 'PaymentUnderpaid':
        if (event.data.amount_received < 0) fail(`${where}: amount_received ${event.data.amount_received} < 0`);
        if (method && event.data.amount_received > method.quoted) fail(`${where}: amount_received ${event.data.amount_received} exceeds the quoted ${method.quoted} though it is underpaid`);
        break;
      case 'PaymentSucceeded': {
        const d = event.data;
        if (d.overpaid_amount !== null) overpaidSeen = true;
        if (d.amount_received < 0) fail(`${where}: amount_received ${d.amount_received} < 0`);
        // the coin overpayment is in the method's coin; another coin's quote an acceptance counted adds to amount_received only (0025 addendum, 2026-11-29, multi-quote)
        const coin = method?.asset;
        const otherCoin = d.accepted && coin !== undefined && [...transfers.values()].some((t) => facts.get(t.checkoutId)?.asset !== coin);
        if (otherCoin) otherCoinCounted = true;
        if (d.overpaid_amount === null && method && d.amount_received > method.quoted && !otherCoin) fail(`${where}: amount_received ${d.amount_received} exceeds the quoted ${method.quoted} with nothing overpaid`);
        const r = d.reporting;
        if (r.amount !== d.amount_received) fail(`${where}: reporting.amount ${r.amount} ≠ amount_received ${d.amount_received}`);
        if (r.net !== r.amount - r.fee - r.transaction_fee) fail(`${where}: reporting.net ${r.net} ≠ ${r.amount} − ${r.fee} − ${r.transaction_fee}`);
        if (run.setup.feePayer === 'business' && r.customer_fee !== 0) fail(`${where}: customer_fee ${r.customer_fee} though the business pays the fee`);
        if (r.fee < 0 || r.transaction_fee < 0 || r.customer_fee < 0) fail(`${where}: a negative fee in ${JSON.stringify(r)}`);
        break;
      }
      default:
        break;
    }
  }
  for (const [id, stream] of h.checkouts) {
    const f = facts.get(id);
    for (const [i, stored] of stream.entries()) {
      const { event } = stored;
      if (run.checked.has(stored)) continue;
      run.checked.add(stored);
      const where = `checkout ${id} event #${i} ${event.type}`;
      integersOnly(event.data, where);
      for (const field of CHECKOUT_CRYPTO_FIELDS[event.type] ?? []) {
        const value = (event.data as Record<string, unknown>)[field];
        if (value === null && (field === 'overpaid_amount' || field === 'remaining_amount')) continue;
        units(value, f?.decimals ?? fail(`${where}: no CheckoutOpened`), `${where}.${field}`);
      }
    }
  }

  // 4. payment.received = the transfers credited, from the stored events: confirmed (current ≥ required),
  //    on the network of the checkout they arrived at, not under review (neither on the payment nor on the checkout).
  const p = pstate;
  if (p.status !== 'none') {
    let credited = 0n;
    for (const [key, t] of transfers) {
      const hash = t.hash;
      const f = facts.get(t.checkoutId) ?? fail(`transfer ${hash} on unknown checkout ${t.checkoutId}`);
      const underReview = t.review !== null || f.reviewed.has(hash);
      if (t.review === null && f.reviewed.has(hash)) fail(`transfer ${hash.slice(0, 12)}: the checkout ${t.checkoutId} put it under review but the payment recorded it with review null`);
      // superseded_quote is the payment's own review (the checkout got what it asked for): 0011 addendum
      if (t.review !== null && t.review !== 'superseded_quote' && !f.reviewed.has(hash)) fail(`transfer ${hash.slice(0, 12)}: the payment recorded review ${t.review} but the checkout ${t.checkoutId} did not review it`);
      const c = confirmations.get(key);
      const confirmed = c !== undefined && c.required > 0 && c.current >= c.required;
      if (!confirmed || underReview || t.network !== f.network) continue;
      // A superseded checkout stays watched (§4): what arrives there counts, but only in the coin the payment is quoted in.
      if (method && f.asset !== method.asset) {
        fail(
          `transfer ${hash.slice(0, 12)} of ${t.amount} ${f.asset}/${f.network} (checkout ${t.checkoutId}) is credited to a payment whose quote is ${method.asset}/${method.network}: ` +
            `units of two coins are summed (payment.received ${fmtUnits(p.received, method.decimals)} ${method.asset})`,
        );
      }
      credited += units(t.amount, f.decimals, `transfer ${hash}`);
    }
    if (p.received !== credited) fail(`payment.received ${p.received} ≠ ${credited}, the confirmed transfers credited per the stored events`);
    if (p.amountReceived < 0) fail(`payment.amount_received ${p.amountReceived} < 0`);
    if (!overpaidSeen && !otherCoinCounted && p.method && p.amountReceived > p.method.quoted) fail(`payment.amount_received ${p.amountReceived} exceeds the quoted ${p.method.quoted} with nothing overpaid`);
  }

  // 5. checkout.received = its transfers on its quoted network (detected), from its events.
  for (const [id, stream] of h.checkouts) {
    const c = checkoutNow.get(id) ?? initialCheckoutState;
    const f = facts.get(id);
    if (c.status === 'none' || c.rail !== 'crypto' || !f) continue;
    let sum = 0n;
    for (const { event } of stream) if (event.type === 'CheckoutTransferDetected' && event.data.network === f.network) sum += units(event.data.amount, f.decimals, `checkout ${id} transfer`);
    if (c.received !== sum) fail(`checkout ${id}: received ${c.received} ≠ ${sum}, its transfers on ${f.network}`);
  }

  // 6. The payment knows every transfer its checkouts hold, each by its checkout and transaction, with
  //    the checkout's amount and confirmations — two checkouts paid by one transaction included — and no other.
  if (p.status !== 'none') {
    const held = new Map<string, { amount: string; current: number }>();
    for (const [id, stream] of h.checkouts) {
      for (const { event } of stream) {
        if (event.type === 'CheckoutTransferDetected') held.set(`${id}|${event.data.tx_hash}`, { amount: event.data.amount, current: 0 });
        if (event.type === 'CheckoutTransferWithdrawn') held.delete(`${id}|${event.data.tx_hash}`);
        if (event.type === 'CheckoutConfirmationRecorded') {
          const t = held.get(`${id}|${event.data.tx_hash}`);
          if (t) t.current = Math.max(t.current, event.data.current);
        }
      }
    }
    for (const [key, t] of held) {
      const known = transfers.get(key) ?? fail(`transfer ${key.slice(0, 24)}… of ${t.amount}: its checkout holds it, the payment does not`);
      if (known.amount !== t.amount) fail(`transfer ${key.slice(0, 24)}…: ${known.amount} on the payment, ${t.amount} on its checkout`);
      const confirmed = confirmations.get(key)?.current ?? 0;
      if (confirmed !== t.current) fail(`transfer ${key.slice(0, 24)}…: ${confirmed} confirmations on the payment, ${t.current} on its checkout`);
    }
    for (const key of transfers.keys()) if (!held.has(key)) fail(`transfer ${key.slice(0, 24)}…: on the payment, held by no checkout`);
  }

  return statuses;
}

const fmtUnits = (u: bigint, decimals: number): string => (u >= 0n ? formatCryptoAmount(u, decimals) : `-${formatCryptoAmount(-u, decimals)}`);

export interface Statuses {
  payment: string;
  checkouts: Record<string, string>;
}

/**
 * The process manager is idempotent (0009 "Idempotence"): every stored event fed through `react`
 * again, each reaction decided on its target's current state, yields nothing new — either no
 * events (the command is retry-safe in its decider) or only events whose derived ids the target
 * stream holds already. Checked reaction by reaction without touching the harness (so a refusal
 * names the reaction), then (`andHarness`) `h.replay()` itself must append nothing.
 */
export function checkReplay(run: Run, andHarness = true): void {
  const h = run.h;
  for (const { stream, stored } of h.log) {
    for (const reaction of h.reactionsTo(stream, stored)) {
      const label = `replaying ${stream} ${stored.event.type} → ${reaction.stream} ${reaction.command.type}`;
      let fresh: { type: string }[];
      try {
        fresh = h.wouldAppend(reaction);
      } catch (error) {
        const what = error instanceof PaymentDomainError ? `refused with ${error.code}` : `threw`;
        return fail(`${label}: the reaction is not retry-safe, it is ${what}: ${(error as Error).message} (state now: ${describeTarget(h, reaction)})`);
      }
      if (fresh.length > 0) fail(`${label}: replay would append ${fresh.map((e) => e.type).join(', ')}`);
    }
  }
  if (!andHarness) return;
  let appended: number;
  try {
    appended = h.replay();
  } catch (error) {
    return fail(`h.replay() threw: ${(error as Error).message}`);
  }
  if (appended !== 0) {
    const added = h.log.slice(-appended).map(({ stream, stored }) => `${stream} ${stored.event.type}`);
    fail(`replay appended ${appended} event(s): ${added.join(', ')}`);
  }
}

function describeTarget(h: Harness, reaction: Reaction): string {
  if (reaction.target === 'payment') return `payment ${h.paymentState(reaction.paymentId).status}`;
  const c = h.checkoutState(reaction.checkoutId);
  return `checkout ${reaction.checkoutId} ${c.status}${c.status !== 'none' && c.superseded ? ' (superseded)' : ''}`;
}
