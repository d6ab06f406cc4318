import { RecordedEvent } from '@lib/eventstore';
import { FeePayer } from '@lib/money';
import { AssetCode, NetworkId } from '@lib/chains';
import { CheckoutCommand, PaymentCommand, SimulatedTransfer } from '../../../libs/payments/src/domain';
import { Harness } from '../harness';

/**
 * Realistic payment and checkout event sequences for the read-side tests: a `World` drives the
 * in-memory harness (deciders + process manager) with ids, details and business times, and
 * `recordedLog` turns its global log into RecordedEvents as the store returns them — with
 * `metadata.occurredAt` the business's clock and `recordedAt` a different (wall) time, so a test
 * that shows the business time proves occurredAt is used.
 */

export const T0 = new Date('2025-03-01T10:00:00.000Z');
/** Wall time of the first logged event: a day before the business clock (test clocks run ahead). */
export const WALL0 = new Date('2025-02-28T10:00:00.000Z');
export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const CHECKOUT_BASE = 'https://pay.example.test/c';
export const SENDER = '0x' + '33'.repeat(20);
export const BIZ_A = 'biz_A';
export const BIZ_B = 'biz_B';

/** A claim typed in upper case: the service stores hex hashes in lower case. */
export const CLAIM_HASH_AS_TYPED = '0x' + 'AB'.repeat(32);
export const CLAIM_HASH = '0x' + 'ab'.repeat(32);
export const hash = (n: number): string => '0x' + n.toString(16).padStart(64, '0');
export const iso = (ms: number): string => new Date(T0.getTime() + ms).toISOString();

export interface PaymentOptions {
  business?: string;
  amount?: number;
  feePayer?: FeePayer;
  feeRateBps?: number;
  linkId?: string | null;
  expiresAt?: string | null;
  reference?: string | null;
  metadata?: Record<string, string>;
  customerId?: string | null;
  customerEmail?: string | null;
  description?: string | null;
  successUrl?: string | null;
}

export interface CheckoutOptions {
  asset?: AssetCode;
  network?: NetworkId;
  rate?: number;
  country?: string | null;
  email?: string | null;
  replaces?: string | null;
}

export class World {
  readonly h = new Harness(T0);
  private addresses = 0;
  /** The address each checkout reserved. */
  readonly addressOf = new Map<string, string>();

  /** Sets the business clock to T0 + ms. */
  at(ms: number): this {
    this.h.at(new Date(T0.getTime() + ms));
    return this;
  }

  create(paymentId: string, o: PaymentOptions = {}): this {
    this.payment(paymentId, {
      type: 'CreatePayment',
      paymentId,
      amount: o.amount ?? 10_000,
      currency: 'USD',
      feePayer: o.feePayer ?? 'business',
      feeRateBps: o.feeRateBps ?? 100,
      linkId: o.linkId ?? null,
      expiresAt: o.expiresAt ?? null,
      details: {
        business_id: o.business ?? BIZ_A,
        mode: 'test',
        code: `code_${paymentId}`,
        description: o.description === undefined ? `Order of ${paymentId}` : o.description,
        reference: o.reference ?? null,
        metadata: o.metadata ?? {},
        customer_id: o.customerId ?? null,
        customer_email: o.customerEmail ?? null,
        success_url: o.successUrl === undefined ? 'https://shop.example.test/thanks' : o.successUrl,
        cancel_url: 'https://shop.example.test/cart',
      },
    });
    return this;
  }

  open(checkoutId: string, paymentId: string, o: CheckoutOptions = {}): this {
    const p = this.h.paymentState(paymentId);
    if (p.status === 'none') throw new Error(`no payment ${paymentId}`);
    const address = '0x' + (++this.addresses).toString(16).padStart(40, 'a');
    this.addressOf.set(checkoutId, address);
    this.checkout(checkoutId, {
      type: 'OpenCheckout',
      checkoutId,
      paymentId,
      linkId: p.linkId,
      rail: 'crypto',
      simulated: true,
      asset: o.asset ?? 'USDC',
      network: o.network ?? 'ethereum',
      address,
      rateMinorPerCoin: o.rate ?? 100,
      currency: p.currency,
      priceMinor: p.amount,
      feePayer: p.feePayer,
      feeRateBps: p.feeRateBps,
      remainder: null,
      quoteTtlMs: 15 * MIN,
      details: {
        business_id: p.details.business_id ?? BIZ_A,
        email: o.email === undefined ? p.details.customer_email ?? null : o.email,
        country: o.country === undefined ? 'DE' : o.country,
        success_url: p.details.success_url ?? null,
        replaces: o.replaces ?? null,
        simulate: null,
      },
    } as CheckoutCommand);
    return this;
  }

  send(checkoutId: string, simulate: SimulatedTransfer, txHash: string): this {
    return this.checkout(checkoutId, { type: 'MarkSent', simulate, txHash, fromAddress: SENDER } as CheckoutCommand);
  }

  /** All confirmations of a transfer (the checkout fills in 1..required). */
  confirm(checkoutId: string, txHash: string, current = 4): this {
    return this.checkout(checkoutId, { type: 'RecordConfirmations', txHash, current });
  }

  payment(paymentId: string, command: PaymentCommand): this {
    this.h.payment(paymentId, command);
    return this;
  }

  checkout(checkoutId: string, command: CheckoutCommand): this {
    this.h.checkout(checkoutId, command);
    return this;
  }

  /** The global log as the store returns it (data through JSON, as stored). */
  recorded(): RecordedEvent[] {
    return recordedLog(this.h);
  }
}

/**
 * A USDC quote, then an ETH quote that sets it aside; the customer pays the USDC one (it becomes
 * the method again: nothing had arrived), then the ETH one too (under review, `superseded_quote`,
 * written in ETH's 18 decimals): the audit's sequence of 2026-11-28.
 */
export function paidTwoQuotesInTwoCoins(): World {
  const w = new World();
  w.at(0).create('pmt_1');
  w.at(MIN).open('chk_1', 'pmt_1', { asset: 'USDC', network: 'ethereum', rate: 100 });
  w.at(MIN + 1000).open('chk_2', 'pmt_1', { asset: 'ETH', network: 'ethereum', rate: 300_000, replaces: 'chk_1' });
  w.at(2 * MIN).send('chk_1', 'exact', hash(1));
  w.at(2 * MIN + 1000).send('chk_2', 'exact', hash(2));
  return w;
}

/**
 * One transaction paying two checkouts of a payment (a batched withdrawal naming both addresses):
 * a USDC quote, then another that sets it aside; one hash pays the first 60 USDC and the second
 * 40, each checkout crediting its own output (the live audit's Bitcoin case, 2026-11-28). The
 * first becomes the method again (nothing had arrived), the second is for review
 * (`superseded_quote`), as two transactions would be.
 */
export function oneTransactionTwoCheckouts(): World {
  const w = new World();
  w.at(0).create('pmt_1');
  w.at(MIN).open('chk_1', 'pmt_1');
  w.at(MIN + 1000).open('chk_2', 'pmt_1', { replaces: 'chk_1' });
  w.at(2 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(7), network: 'ethereum', amount: '60', fromAddress: SENDER });
  w.at(2 * MIN).checkout('chk_2', { type: 'DetectTransfer', txHash: hash(7), network: 'ethereum', amount: '40', fromAddress: SENDER });
  return w;
}

/** A transfer detected, then withdrawn by a reorganisation before it was final, then another transfer paying the checkout. */
export function withdrawnThenPaid(): World {
  const w = new World();
  w.at(0).create('pmt_1');
  w.at(MIN).open('chk_1', 'pmt_1');
  w.at(2 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(8), network: 'ethereum', amount: '100', fromAddress: SENDER });
  w.at(3 * MIN).checkout('chk_1', { type: 'WithdrawTransfer', txHash: hash(8) });
  w.at(4 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(9), network: 'ethereum', amount: '100', fromAddress: SENDER });
  return w;
}

export function recordedLog(h: Harness, wallStart: Date = WALL0): RecordedEvent[] {
  const revisions = new Map<string, number>();
  return h.log.map(({ stream, stored }, i) => {
    const revision = revisions.get(stream) ?? 0;
    revisions.set(stream, revision + 1);
    return {
      id: stored.id,
      type: stored.event.type,
      data: JSON.parse(JSON.stringify(stored.event.data)),
      metadata: { occurredAt: stored.recordedAt, ...(stored.causationId ? { causationId: stored.causationId } : {}) },
      stream,
      revision,
      position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
      recordedAt: new Date(wallStart.getTime() + i * 1000),
    };
  });
}

/** A business-stream event the businesses projector turns into a `businesses` row. */
export function businessCreated(id: string, name: string, website: string | null, supportEmail: string | null, position: number): RecordedEvent {
  return {
    id: `00000000-0000-4000-8000-${position.toString().padStart(12, '0')}`,
    type: 'BusinessCreated',
    data: { business_id: id, name, simulated: true, website, support_email: supportEmail },
    metadata: {},
    stream: `business-${id}`,
    revision: 0,
    position: { commit: BigInt(position), prepare: BigInt(position) },
    recordedAt: WALL0,
  };
}

/**
 * The scenarios the view tests read (each payment in its own hour, so lists have an order):
 * - pmt_ok: exact transfer, 4 confirmations → succeeded; metadata changed afterwards
 * - pmt_under: 90% → underpaid → quote ends → remainder checkout chk_under2 → 10% → succeeded
 * - pmt_claim: checkout expired, then claimed with a hash → needs_review
 * - pmt_cancel: canceled by the business with a checkout open (it fails)
 * - pmt_exp: no success url; checkout expired, then the payment expired → failed (payment_expired)
 * - pmt_link: a link payment whose checkout the customer canceled → failed (checkout_canceled)
 * - pmt_wrong: transfer on another network → needs_review, then accepted → succeeded
 * - pmt_over: the customer pays the fee and sends 110% → succeeded with an overpayment
 * - pmt_rep: a second checkout replaces the first
 * - pmt_other: another business's payment
 */
export function scenarios(): World {
  const w = new World();
  let hour = 0;
  const next = () => (hour++) * HOUR;

  let t = next();
  w.at(t).create('pmt_ok', { metadata: { order: 'o-1' }, customerId: 'cst_1', reference: 'ref-ok', customerEmail: 'buyer@example.test' });
  w.at(t + 1 * MIN).open('chk_ok', 'pmt_ok', { country: 'DE' });
  w.at(t + 2 * MIN).send('chk_ok', 'exact', hash(1));
  w.at(t + 3 * MIN).confirm('chk_ok', hash(1));
  w.at(t + 4 * MIN).payment('pmt_ok', { type: 'UpdateMetadata', metadata: { order: 'o-1b', channel: 'web' } });

  t = next();
  w.at(t).create('pmt_under', { metadata: { order: 'o-2' }, customerId: 'cst_2' });
  w.at(t + 1 * MIN).open('chk_under', 'pmt_under', { country: 'FR' });
  w.at(t + 2 * MIN).send('chk_under', 'underpaid', hash(2));
  w.at(t + 3 * MIN).confirm('chk_under', hash(2));
  w.at(t + 20 * MIN).checkout('chk_under', { type: 'ExpireCheckout' });
  w.at(t + 21 * MIN).payment('pmt_under', { type: 'RequestRemainder', checkoutId: 'chk_under2', hasCheckoutPage: true });
  w.at(t + 22 * MIN).send('chk_under2', 'exact', hash(3));
  w.at(t + 23 * MIN).confirm('chk_under2', hash(3));

  t = next();
  w.at(t).create('pmt_claim', { customerId: 'cst_1' });
  w.at(t + 1 * MIN).open('chk_claim', 'pmt_claim', { email: null });
  w.at(t + 17 * MIN).checkout('chk_claim', { type: 'ExpireCheckout' });
  w.at(t + 18 * MIN).checkout('chk_claim', { type: 'ClaimCheckout', txHash: CLAIM_HASH_AS_TYPED, email: 'late@example.test', paymentSucceeded: false });

  t = next();
  w.at(t).create('pmt_cancel', { reference: 'ref-cancel' });
  w.at(t + 1 * MIN).open('chk_cancel', 'pmt_cancel');
  w.at(t + 5 * MIN).payment('pmt_cancel', { type: 'CancelPayment' });

  t = next();
  w.at(t).create('pmt_exp', { expiresAt: iso(t + HOUR - MIN), successUrl: null });
  w.at(t + 1 * MIN).open('chk_exp', 'pmt_exp');
  w.at(t + 17 * MIN).checkout('chk_exp', { type: 'ExpireCheckout' });
  w.at(t + HOUR - MIN).payment('pmt_exp', { type: 'ExpirePayment' });

  t = next();
  w.at(t).create('pmt_link', { linkId: 'lnk_1' });
  w.at(t + 1 * MIN).open('chk_link', 'pmt_link');
  w.at(t + 2 * MIN).checkout('chk_link', { type: 'CancelCheckout' });

  t = next();
  w.at(t).create('pmt_wrong', { metadata: { order: 'o-3' } });
  w.at(t + 1 * MIN).open('chk_wrong', 'pmt_wrong');
  w.at(t + 2 * MIN).send('chk_wrong', 'wrong_network', hash(5));
  w.at(t + 3 * MIN).confirm('chk_wrong', hash(5));
  w.at(t + 10 * MIN).payment('pmt_wrong', { type: 'AcceptPayment' });

  t = next();
  w.at(t).create('pmt_over', { feePayer: 'customer', customerId: 'cst_2' });
  w.at(t + 1 * MIN).open('chk_over', 'pmt_over');
  w.at(t + 2 * MIN).send('chk_over', 'overpaid', hash(6));
  w.at(t + 3 * MIN).confirm('chk_over', hash(6));

  t = next();
  w.at(t).create('pmt_rep');
  w.at(t + 1 * MIN).open('chk_rep1', 'pmt_rep', { country: 'DE' });
  w.at(t + 2 * MIN).open('chk_rep2', 'pmt_rep', { country: 'AT', asset: 'USDC', network: 'base', replaces: 'chk_rep1' });

  // a transaction seen in the mempool holds the quote past its timer; another was dropped (0023 addendum, 2026-11-29)
  t = next();
  w.at(t).create('pmt_held');
  w.at(t + 1 * MIN).open('chk_held', 'pmt_held');
  w.at(t + 2 * MIN).checkout('chk_held', { type: 'SightTransfer', txHash: hash(10), network: 'ethereum', amount: '100' });
  w.at(t + 3 * MIN).checkout('chk_held', { type: 'SightTransfer', txHash: hash(11), network: 'ethereum', amount: '100' });
  w.at(t + 4 * MIN).checkout('chk_held', { type: 'DropSighting', txHash: hash(11) });
  w.at(t + 17 * MIN).checkout('chk_held', { type: 'ExpireCheckout' });

  t = next();
  w.at(t).create('pmt_other', { business: BIZ_B, metadata: { order: 'o-1' }, customerId: 'cst_1' });
  w.at(t + 1 * MIN).open('chk_other', 'pmt_other');
  return w;
}
