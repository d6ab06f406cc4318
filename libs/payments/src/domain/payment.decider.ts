import { AssetCode, NetworkId, normalizeTxHash } from '@lib/chains';
import { FeePayer, buildBreakdown, buildReporting, customerFeeFor, fiatExponent, fiatValueOf, overpaid, quoteCryptoAmount, receivedValueMinor, remaining, validatePaymentAmount } from '@lib/money';
import { CommandHandlers, Decider, article, decideBy, foldWith, ignoreUnknown, repeatedCreation } from '@lib/domain';
import { PaymentDomainError } from './errors';
import { PaymentDetails, PaymentEvent, PaymentReviewReason } from './payment.events';
import { mergeMetadata } from './metadata';
import { DecideContext, REMAINDER_WAIT_MS, SIGHTING_HOLD_MS, carried, fmt, laterOf, money, parse, shortQuoteEnd } from './shared';

/**
 * The payment aggregate's decider: pure functions over one `payment-<pmt_id>` stream. The
 * checkout streams tell the payment what happened through the Record* commands (a process
 * manager translates checkout events into them); the business acts through Accept/Cancel/
 * RequestRemainder; timers through ExpirePayment. Crypto and card (decision 0026): a card
 * checkout selects the card method (SelectCardMethod) and its charge pays the payment at once
 * (RecordCardPayment).
 */

export type PaymentStatus = 'pending' | 'underpaid' | 'needs_review' | 'succeeded' | 'failed' | 'canceled';

export interface PaymentMethodState {
  checkoutId: string;
  rail: 'crypto';
  asset: AssetCode;
  network: NetworkId;
  decimals: number;
  /** Units the quote asked for (the whole price; a remainder checkout collects part of it). */
  expected: bigint;
  rate: number;
  /** Fiat the quote was made for (breakdown total). */
  quoted: number;
  /** The quote's life (QUOTE_TTL_SECONDS when it was opened): also how long a short transfer's quote is held (§4 remainder). */
  quoteTtlMs: number;
  /**
   * Set when a remainder was quoted afresh at another rate (decision 0020): `expected` is then
   * what had arrived (`units`, worth `value`) plus the remainder's quote, `rate` the remainder's,
   * and what arrives from here is valued at that rate on top of `value`.
   */
  base?: { units: bigint; value: number };
}

export interface PaymentTransferState {
  checkoutId: string;
  txHash: string;
  network: NetworkId;
  amount: bigint;
  review: PaymentReviewReason | null;
  current: number;
  required: number;
  /** Detected once the payment had succeeded. */
  afterSuccess: boolean;
  /** When it was made, as its checkout records it (PaymentTransferDetected `transferred_at`); null on events stored before. */
  at?: string | null;
}

export interface LivePaymentState {
  status: PaymentStatus;
  id: string;
  amount: number;
  currency: string;
  feePayer: FeePayer;
  feeRateBps: number;
  customerFee: number;
  linkId: string | null;
  expiresAt: string | null;
  method: PaymentMethodState | null;
  /** Checkouts known to the payment, and whether each is still open (`card` on the card rail's: decision 0026). */
  checkouts: Readonly<Record<string, { remainder: boolean; open: boolean; card?: true }>>;
  /**
   * Transfers by checkout and transaction (`transferKey`): one transaction may pay two checkouts of
   * the payment (a superseded quote and the current one, a remainder and the first; a batched
   * withdrawal naming both addresses), each crediting its own output (0025 addendum, 2026-11-28, third).
   */
  transfers: Readonly<Record<string, PaymentTransferState>>;
  /**
   * Transactions seen in the mempool paying a checkout of the payment while its quote was live,
   * not mined yet nor dropped (`transferKey` → when seen): they hold the payment's expiry
   * (decision 0023, addendum 2026-11-29).
   */
  sightings: Readonly<Record<string, { checkoutId: string; sightedAt: string }>>;
  /** Units confirmed on the quoted network (transfers not under review). */
  received: bigint;
  /** When the quote of the short transfer ends (underpaid). */
  quoteEndsAt: string | null;
  remainderCheckoutId: string | null;
  amountReceived: number;
  accepted: boolean;
  claimTxHash: string | null;
  failureCode: string | null;
  /** Who the payment belongs to and what it shows (empty in the pure tests that leave it out). */
  details: Partial<PaymentDetails>;
  /** Every quote the payment was offered (checkouts opened for it, not remainders): superseded ones stay watched. */
  quotes: Readonly<Record<string, { method: PaymentMethodState; quoteEndsAt: string }>>;
  /** The rail of the current method (null before one is selected). */
  rail: 'crypto' | 'card' | null;
  /** The card checkout selected last (decision 0026): what its card is charged. */
  cardMethod: { checkoutId: string; quoted: number } | null;
  /** Card charges, by attempt id. */
  cardCharges: Readonly<Record<string, { checkoutId: string; amount: number; review: PaymentReviewReason | null }>>;
}

export type PaymentState = { status: 'none' } | LivePaymentState;

/**
 * How the payment knows a transfer: the checkout it paid and its transaction. The events have
 * always named both, and a stream stored while the payment knew transfers by hash alone holds no
 * two transfers of one hash at once (the second was dropped), so it folds to the same transfers.
 */
export function transferKey(checkoutId: string, txHash: string): string {
  return `${checkoutId}|${txHash}`;
}

export const initialPaymentState: PaymentState = Object.freeze({ status: 'none' });

export interface CreatePayment {
  type: 'CreatePayment';
  paymentId: string;
  amount: number;
  currency: string;
  feePayer: FeePayer;
  feeRateBps: number;
  linkId: string | null;
  expiresAt: string | null;
  details?: PaymentDetails;
}
/** PATCH /payments/{id}: merge by key; '' or null removes a key; null clears everything. */
export interface UpdateMetadata {
  type: 'UpdateMetadata';
  metadata: Record<string, string | null> | null;
}
/** A checkout opened for the payment (not a remainder one): its quote becomes the method. */
export interface SelectMethod {
  type: 'SelectMethod';
  checkoutId: string;
  rail: 'crypto';
  asset: AssetCode;
  network: NetworkId;
  rateMinorPerCoin: number;
  quoteEndsAt: string;
  /** The quote's life (absent on checkouts opened before it was recorded: the spec's 15 minutes). */
  quoteTtlMs?: number;
  /** The checkout's deposit address and the customer's country, recorded so the payment's own stream describes it. */
  address?: string;
  /** The wallet the checkout's address belongs to (the payment's settlement names it). */
  walletId?: string;
  country?: string | null;
}
/** A card checkout opened for the payment (decision 0026). */
export interface SelectCardMethod {
  type: 'SelectCardMethod';
  checkoutId: string;
  /** What the card is charged: the checkout's breakdown total. */
  quotedMinor: number;
  country: string | null;
}
/** A processor charged the card on one of the payment's card checkouts. */
export interface RecordCardPayment {
  type: 'RecordCardPayment';
  checkoutId: string;
  attemptId: string;
  processor: string;
  brand: string;
  last4: string;
  amountMinor: number;
  /** Set when the checkout no longer waited for this attempt (canceled, ended otherwise). */
  review: PaymentReviewReason | null;
}
export interface RecordTransfer {
  type: 'RecordTransfer';
  checkoutId: string;
  txHash: string;
  network: NetworkId;
  amount: string;
  review: PaymentReviewReason | null;
  fromAddress?: string | null;
  /** When it was made, as the checkout records it (`transferTime` of its CheckoutTransferDetected); absent: when the payment records it. */
  transferredAt?: string | null;
}
/** The checkout recorded a transaction seen in the mempool (CheckoutTransferSighted). */
export interface RecordSighting {
  type: 'RecordSighting';
  checkoutId: string;
  txHash: string;
  sightedAt: string;
}
/** The checkout's sighted transaction left the mempool unmined (CheckoutSightingDropped). */
export interface DropPaymentSighting {
  type: 'DropSighting';
  checkoutId: string;
  txHash: string;
}
/** The checkout withdrew a transfer (a reorganisation, before it was final). */
export interface WithdrawPaymentTransfer {
  type: 'WithdrawTransfer';
  checkoutId: string;
  txHash: string;
}
export interface RecordConfirmations {
  type: 'RecordConfirmations';
  checkoutId: string;
  txHash: string;
  current: number;
  required: number;
  /** Network fee the business bore (fiat minor); 0 when simulated. */
  transactionFeeMinor?: number;
}
export interface RecordCheckoutEnded {
  type: 'RecordCheckoutEnded';
  checkoutId: string;
  /** `completed` only closes the checkout on the payment (the payment decided on its confirmations). */
  outcome: 'completed' | 'expired' | 'canceled' | 'failed';
}
export interface RecordClaim {
  type: 'RecordClaim';
  checkoutId: string;
  txHash: string;
  network: NetworkId;
}
export interface RequestRemainder {
  type: 'RequestRemainder';
  /** The id the remainder checkout gets if one is opened. */
  checkoutId: string;
  /** False when no checkout page is left (a deleted link's). */
  hasCheckoutPage: boolean;
  /** The fresh address reserved for the remainder checkout (the handler reserves it: I/O stays out of the decider). */
  reserved?: { address: string; walletId: string; index: number };
  /**
   * The rate now, read by the handler from the business's source (decision 0020). At the method's
   * rate (or without one) the remainder is exactly the units left; at another rate, the fiat left
   * quoted afresh.
   */
  rate?: { rateMinorPerCoin: number; source: string; at: string };
}
export interface AcceptPayment {
  type: 'AcceptPayment';
  transactionFeeMinor?: number;
}
export interface CancelPayment {
  type: 'CancelPayment';
}
export interface ExpirePayment {
  type: 'ExpirePayment';
}

export type PaymentCommand =
  | CreatePayment
  | SelectMethod
  | SelectCardMethod
  | RecordCardPayment
  | RecordTransfer
  | RecordSighting
  | DropPaymentSighting
  | WithdrawPaymentTransfer
  | RecordConfirmations
  | RecordCheckoutEnded
  | RecordClaim
  | RequestRemainder
  | AcceptPayment
  | CancelPayment
  | ExpirePayment
  | UpdateMetadata;

/** What each command decides on a payment that exists (CreatePayment is the one that starts it). */
const PAYMENT_COMMANDS: CommandHandlers<Exclude<PaymentCommand, CreatePayment>, LivePaymentState, DecideContext, PaymentEvent> = {
  SelectMethod: selectMethod,
  SelectCardMethod: selectCardMethod,
  RecordCardPayment: recordCardPayment,
  RecordTransfer: recordTransfer,
  RecordSighting: recordSighting,
  DropSighting: dropSighting,
  WithdrawTransfer: withdrawTransfer,
  RecordConfirmations: recordConfirmations,
  RecordCheckoutEnded: checkoutEnded,
  RecordClaim: recordClaim,
  RequestRemainder: requestRemainder,
  AcceptPayment: accept,
  CancelPayment: (_command, state) => cancelPayment(state),
  ExpirePayment: (_command, state, ctx) => expirePayment(state, ctx),
  UpdateMetadata: updateMetadata,
};

export function decidePayment(command: PaymentCommand, state: PaymentState, ctx: DecideContext): PaymentEvent[] {
  if (command.type === 'CreatePayment') return create(command, state);
  if (state.status === 'none') throw new PaymentDomainError('not_found', 'No such payment.');
  return decideBy(PAYMENT_COMMANDS, command, state, ctx);
}

export function evolvePayment(state: PaymentState, event: PaymentEvent): PaymentState {
  if (event.type === 'PaymentCreated') {
    // the payment's terms, then its details (PaymentDetails: whatever the data carries of them)
    const { payment_id, amount, currency, fee_payer, fee_rate_bps, customer_fee, link_id, expires_at, ...details } = event.data;
    return {
      status: 'pending',
      id: payment_id,
      amount,
      currency,
      feePayer: fee_payer,
      feeRateBps: fee_rate_bps,
      customerFee: customer_fee,
      linkId: link_id,
      expiresAt: expires_at,
      method: null,
      checkouts: {},
      transfers: {},
      sightings: {},
      received: 0n,
      quoteEndsAt: null,
      remainderCheckoutId: null,
      amountReceived: 0,
      accepted: false,
      claimTxHash: null,
      failureCode: null,
      quotes: {},
      rail: null,
      cardMethod: null,
      cardCharges: {},
      details: { ...details, metadata: details.metadata ?? {} },
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'PaymentMethodSelected': {
      const d = event.data;
      const { decimals } = carried(d.asset, d.network);
      const method: PaymentMethodState = { checkoutId: d.checkout_id, rail: d.rail, asset: d.asset, network: d.network, decimals, expected: parse(d.expected_amount, decimals), rate: d.rate.amount, quoted: d.quoted_amount, quoteTtlMs: d.quote_ttl_ms ?? REMAINDER_WAIT_MS };
      return {
        ...state,
        method,
        rail: 'crypto',
        // selected again (a superseded quote was paid): the checkout keeps whether it is still open
        checkouts: { ...state.checkouts, [d.checkout_id]: { remainder: false, open: state.checkouts[d.checkout_id]?.open ?? true } },
        quoteEndsAt: d.quote_ends_at,
        quotes: { ...state.quotes, [d.checkout_id]: { method, quoteEndsAt: d.quote_ends_at } },
      };
    }
    case 'PaymentTransferDetected': {
      const d = event.data;
      // in the coin of the quote the transfer paid (a remainder checkout pays the method's)
      const decimals = state.quotes[d.checkout_id]?.method.decimals ?? state.method?.decimals ?? 0;
      return {
        ...state,
        sightings: withoutKey(state.sightings, transferKey(d.checkout_id, d.tx_hash)), // mined: it counts from here
        transfers: { ...state.transfers, [transferKey(d.checkout_id, d.tx_hash)]: { checkoutId: d.checkout_id, txHash: d.tx_hash, network: d.network, amount: parse(d.amount, decimals), review: d.review, current: 0, required: 0, afterSuccess: state.status === 'succeeded', at: d.transferred_at ?? null } },
      };
    }
    case 'PaymentTransferSighted': {
      const d = event.data;
      return { ...state, sightings: { ...state.sightings, [transferKey(d.checkout_id, d.tx_hash)]: { checkoutId: d.checkout_id, sightedAt: d.sighted_at } } };
    }
    case 'PaymentSightingDropped':
      return { ...state, sightings: withoutKey(state.sightings, transferKey(event.data.checkout_id, event.data.tx_hash)) };
    case 'PaymentTransferWithdrawn': {
      const transfers = { ...state.transfers };
      delete transfers[transferKey(event.data.checkout_id, event.data.tx_hash)];
      return { ...state, transfers };
    }
    case 'PaymentConfirmationRecorded': {
      const d = event.data;
      const key = transferKey(d.checkout_id, d.tx_hash);
      const transfer = state.transfers[key];
      if (!transfer) return state;
      const reached = d.current >= d.required && transfer.current < d.required;
      return {
        ...state,
        transfers: { ...state.transfers, [key]: { ...transfer, current: d.current, required: d.required } },
        received: reached && transfer.review === null ? state.received + transfer.amount : state.received,
      };
    }
    case 'PaymentTransferCountedAfterSuccess':
      return state; // `received` took the transfer with its last confirmation
    case 'PaymentUnderpaid':
      return { ...state, status: 'underpaid', amountReceived: event.data.amount_received, quoteEndsAt: event.data.quote_ends_at };
    case 'PaymentRemainderRequested': {
      const d = event.data;
      const next: LivePaymentState = { ...state, remainderCheckoutId: d.checkout_id, checkouts: { ...state.checkouts, [d.checkout_id]: { remainder: true, open: true } } };
      const method = state.method;
      if (d.rate === undefined || method === null || d.rate.amount === method.rate) return next;
      // quoted afresh at another rate (0020): due = what arrived + the remainder's quote, valued from here at the new rate
      const base = { units: state.received, value: state.amountReceived };
      return { ...next, method: { ...method, rate: d.rate.amount, expected: state.received + parse(d.crypto_amount, method.decimals), base } };
    }
    case 'PaymentRemainderPaid':
      return state;
    case 'PaymentSucceeded':
      return { ...state, status: 'succeeded', amountReceived: event.data.amount_received, accepted: event.data.accepted, remainderCheckoutId: null };
    case 'PaymentNeedsReview':
      return { ...state, status: 'needs_review' };
    case 'PaymentClaimed':
      return { ...state, status: 'needs_review', claimTxHash: event.data.tx_hash };
    case 'PaymentAccepted':
      return state;
    case 'PaymentCheckoutEnded': {
      const known = state.checkouts[event.data.checkout_id];
      return {
        ...state,
        checkouts: known ? { ...state.checkouts, [event.data.checkout_id]: { ...known, open: false } } : state.checkouts,
        remainderCheckoutId: state.remainderCheckoutId === event.data.checkout_id ? null : state.remainderCheckoutId,
      };
    }
    case 'PaymentExpired':
      return { ...state, status: 'failed', failureCode: event.data.failure_code };
    case 'PaymentFailed':
      return { ...state, status: 'failed', failureCode: event.data.failure_code };
    case 'PaymentCanceled':
      return { ...state, status: 'canceled' };
    case 'PaymentMetadataUpdated':
      return { ...state, details: { ...state.details, metadata: event.data.metadata } };
    case 'PaymentCardMethodSelected': {
      const d = event.data;
      return {
        ...state,
        rail: 'card',
        cardMethod: { checkoutId: d.checkout_id, quoted: d.quoted_amount },
        checkouts: { ...state.checkouts, [d.checkout_id]: { remainder: false, open: state.checkouts[d.checkout_id]?.open ?? true, card: true } },
      };
    }
    case 'PaymentCardCharged': {
      const d = event.data;
      return {
        ...state,
        rail: d.review === null ? 'card' : state.rail,
        cardMethod: d.review === null ? { checkoutId: d.checkout_id, quoted: d.amount } : state.cardMethod,
        cardCharges: { ...state.cardCharges, [d.attempt_id]: { checkoutId: d.checkout_id, amount: d.amount, review: d.review } },
      };
    }
    default:
      return ignoreUnknown(event, state);
  }
}

function withoutKey<T>(record: Readonly<Record<string, T>>, key: string): Readonly<Record<string, T>> {
  if (!Object.hasOwn(record, key)) return record;
  const rest = { ...record };
  delete rest[key];
  return rest;
}

export function foldPayment(events: Iterable<PaymentEvent>, state: PaymentState = initialPaymentState): PaymentState {
  return foldWith(paymentDecider, events, state);
}

/** Money that arrived and waits for the business's review: a transfer or a card charge recorded under review. */
function moneyUnderReview(state: LivePaymentState): boolean {
  return Object.values(state.transfers).some((t) => t.review !== null) || Object.values(state.cardCharges).some((c) => c.review !== null);
}

/**
 * Whether money under review (a transfer or a card charge recorded with a reason) puts the payment
 * in review: not once it succeeded (the money is listed for the business to refund), and not when
 * it is in review already (0025 addendum, 2026-11-28, second): the business reviews the payment
 * once, with every transfer and charge listed with its reason; no second PaymentNeedsReview (nor
 * a second alert e-mail).
 */
function opensReview(state: LivePaymentState): boolean {
  return state.status !== 'succeeded' && state.status !== 'needs_review';
}

/** A transfer detected and not yet confirmed (nor under review): funds on their way. */
export function inFlight(state: LivePaymentState): boolean {
  return Object.values(state.transfers).some((t) => t.review === null && (t.required === 0 || t.current < t.required));
}

/**
 * Whether a transaction seen in the mempool while its checkout's quote was live holds the
 * payment's expiry at `now` (0023 addendum, 2026-11-29): its checkout still open on the payment,
 * seen less than SIGHTING_HOLD_MS ago, neither mined nor dropped since.
 */
export function paymentSightingHolds(state: LivePaymentState, now: Date): boolean {
  return Object.values(state.sightings).some((s) => state.checkouts[s.checkoutId]?.open === true && now.getTime() < Date.parse(s.sightedAt) + SIGHTING_HOLD_MS);
}

/** A checkout of the payment recorded a transaction seen in the mempool (0023 addendum, 2026-11-29): held on the payment too, once. */
function recordSighting(command: RecordSighting, state: LivePaymentState): PaymentEvent[] {
  const key = transferKey(command.checkoutId, command.txHash);
  if (state.status !== 'pending' || Object.hasOwn(state.sightings, key) || state.transfers[key]) return []; // decided already, or known
  if (state.checkouts[command.checkoutId]?.open !== true) return [];
  return [{ type: 'PaymentTransferSighted', data: { checkout_id: command.checkoutId, tx_hash: command.txHash, sighted_at: command.sightedAt } }];
}

/** The checkout's sighted transaction left the mempool unmined: it holds the payment no longer. */
function dropSighting(command: DropPaymentSighting, state: LivePaymentState): PaymentEvent[] {
  if (!Object.hasOwn(state.sightings, transferKey(command.checkoutId, command.txHash))) return [];
  return [{ type: 'PaymentSightingDropped', data: { checkout_id: command.checkoutId, tx_hash: command.txHash } }];
}

/** What the payment's price comes to with the customer's fee (the crypto breakdown's total): what its quotes are made for. */
export function quoteTotal(state: LivePaymentState): number {
  return money(() => buildBreakdown({ currency: state.currency, priceMinor: state.amount, rail: 'crypto', feePayer: state.feePayer, feeRateBps: state.feeRateBps }).total);
}

function create(command: CreatePayment, state: PaymentState): PaymentEvent[] {
  if (repeatedCreation('payment', state.status === 'none' ? null : state.id, command.paymentId)) return [];
  const amount = money(() => validatePaymentAmount(command.amount, command.currency));
  const customerFee = money(() => customerFeeFor(amount, command.feeRateBps, command.feePayer));
  return [
    {
      type: 'PaymentCreated',
      data: {
        payment_id: command.paymentId,
        amount,
        currency: command.currency,
        fee_payer: command.feePayer,
        fee_rate_bps: command.feeRateBps,
        customer_fee: customerFee,
        link_id: command.linkId,
        expires_at: command.expiresAt,
        ...command.details,
      },
    },
  ];
}

function updateMetadata(command: UpdateMetadata, state: LivePaymentState): PaymentEvent[] {
  const before = state.details.metadata ?? {};
  const after = mergeMetadata(before, command.metadata);
  const same = Object.keys(after).length === Object.keys(before).length && Object.entries(after).every(([k, v]) => before[k] === v);
  return same ? [] : [{ type: 'PaymentMetadataUpdated', data: { metadata: after } }];
}

/** Refusals of a payment that can no longer take a new attempt (POST /checkouts). */
function assertPayable(state: LivePaymentState, ctx: DecideContext): void {
  if (state.status === 'succeeded' || state.status === 'underpaid' || state.status === 'needs_review') {
    throw new PaymentDomainError('payment_paid', 'Funds reached this payment.');
  }
  if (state.status === 'canceled') throw new PaymentDomainError('payment_canceled', 'The business canceled the payment.');
  if (state.failureCode === 'payment_expired' || (state.expiresAt !== null && ctx.now.getTime() >= Date.parse(state.expiresAt))) {
    throw new PaymentDomainError('payment_expired', 'The payment passed expires_at.');
  }
  if (state.status === 'failed') throw new PaymentDomainError('payment_canceled', 'The payment failed: its checkout was canceled.');
}

function selectMethod(command: SelectMethod, state: LivePaymentState, ctx: DecideContext): PaymentEvent[] {
  if (state.checkouts[command.checkoutId]) return []; // this checkout is the method already
  assertPayable(state, ctx);
  if (inFlight(state)) throw new PaymentDomainError('payment_in_flight', 'A transfer is on its way.');
  const { decimals } = carried(command.asset, command.network);
  const quoted = quoteTotal(state);
  const expected = money(() => quoteCryptoAmount({ priceMinor: quoted, rateMinorPerCoin: command.rateMinorPerCoin, decimals }));
  return [
    {
      type: 'PaymentMethodSelected',
      data: {
        checkout_id: command.checkoutId,
        rail: 'crypto',
        asset: command.asset,
        network: command.network,
        expected_amount: fmt(expected, decimals),
        rate: { amount: command.rateMinorPerCoin, currency: state.currency },
        quoted_amount: quoted,
        quote_ends_at: command.quoteEndsAt,
        ...(command.quoteTtlMs !== undefined ? { quote_ttl_ms: command.quoteTtlMs } : {}),
        ...(command.address !== undefined ? { address: command.address, country: command.country ?? null } : {}),
        ...(command.walletId !== undefined ? { wallet_id: command.walletId } : {}),
      },
    },
  ];
}

function selectCardMethod(command: SelectCardMethod, state: LivePaymentState, ctx: DecideContext): PaymentEvent[] {
  if (state.checkouts[command.checkoutId]) return []; // this checkout is the method already
  assertPayable(state, ctx);
  if (inFlight(state)) throw new PaymentDomainError('payment_in_flight', 'A transfer is on its way.');
  return [{ type: 'PaymentCardMethodSelected', data: { checkout_id: command.checkoutId, rail: 'card', quoted_amount: command.quotedMinor, country: command.country } }];
}

/**
 * A card charge (decision 0026). On a pending payment with nothing else on its way, and a
 * checkout that waited for it: the payment succeeded with what was charged (no network fee:
 * transaction_fee 0). A charge the checkout no longer waited for (`review`), or on a payment
 * that cannot take it any more (paid, canceled, failed, a transfer on its way), is for the
 * business to review: needs_review unless the payment already succeeded or is in review
 * (`opensReview`).
 */
function recordCardPayment(command: RecordCardPayment, state: LivePaymentState): PaymentEvent[] {
  if (state.cardCharges[command.attemptId]) return [];
  if (!state.checkouts[command.checkoutId]) throw new Error(`checkout ${command.checkoutId} is not one of payment ${state.id}'s`);
  const review: PaymentReviewReason | null = command.review ?? (state.status !== 'pending' || inFlight(state) ? 'paid_after_close' : null);
  const events: PaymentEvent[] = [
    { type: 'PaymentCardCharged', data: { checkout_id: command.checkoutId, attempt_id: command.attemptId, processor: command.processor, brand: command.brand, last4: command.last4, amount: command.amountMinor, review } },
  ];
  if (review !== null) {
    if (opensReview(state)) events.push({ type: 'PaymentNeedsReview', data: { checkout_id: command.checkoutId, reason: review, attempt_id: command.attemptId } });
    return events;
  }
  if (state.checkouts[command.checkoutId]?.open) events.push({ type: 'PaymentCheckoutEnded', data: { checkout_id: command.checkoutId, outcome: 'completed' } });
  events.push(cardSucceeded(state, command.amountMinor, false));
  return events;
}

function cardSucceeded(state: LivePaymentState, amountMinor: number, accepted: boolean): PaymentEvent {
  const reporting = money(() => buildReporting({ currency: state.currency, amountReceivedMinor: amountMinor, feeRateBps: state.feeRateBps, transactionFeeMinor: 0, customerFeeMinor: state.customerFee, feePayer: state.feePayer }));
  return { type: 'PaymentSucceeded', data: { amount_received: amountMinor, received_amount: fiatDecimal(amountMinor, state.currency), overpaid_amount: null, accepted, reporting } };
}

/** Minor units as a decimal string of the currency (a card's `received_amount`: 10100 USD → "101"). */
export function fiatDecimal(amountMinor: number, currency: string): string {
  return fmt(BigInt(amountMinor), money(() => fiatExponent(currency)));
}

function methodOf(state: LivePaymentState): PaymentMethodState {
  if (state.method === null) throw new Error(`payment ${state.id} has no method yet`);
  return state.method;
}

/**
 * A transfer a checkout of the payment recorded (the process manager names its review: another
 * network, or after its checkout ended). Listed at once (the timeline's `detected`, the receipt's
 * transfers); one under review puts the payment in review (`opensReview`). A transfer to a
 * checkout in review on its quoted network comes with no review (0025 addendum, 2026-11-28,
 * second): it is counted like any other, and `recordConfirmations` applies the rule for money
 * arriving while the payment is in review.
 */
function recordTransfer(command: RecordTransfer, state: LivePaymentState, ctx: DecideContext): PaymentEvent[] {
  const current = methodOf(state);
  if (state.transfers[transferKey(command.checkoutId, command.txHash)]) return []; // this checkout's output of the transaction, seen already
  if (!state.checkouts[command.checkoutId]) throw new Error(`checkout ${command.checkoutId} is not one of payment ${state.id}'s`);
  const events: PaymentEvent[] = [];
  let review = command.review;
  const quote = state.quotes[command.checkoutId];
  let method = current;
  // a superseded quote, or the crypto quote a card checkout opened after it set aside (still pending: nothing charged)
  if (quote && (quote.method.checkoutId !== current.checkoutId || (state.rail === 'card' && state.status === 'pending'))) {
    // A superseded quote (still watched, §4) was paid: it is what the customer chose. If nothing
    // has arrived yet it becomes the method again (recorded, so views follow: the payment's
    // checkout_id names it, the quote it is paid through); otherwise the
    // payment already takes another quote's money, and this transfer is for the business to
    // review (0011 addendum). Either way it is read in its own coin.
    method = quote.method;
    if (review === null && Object.keys(state.transfers).length === 0) {
      const m = quote.method;
      events.push({
        type: 'PaymentMethodSelected',
        // `reinstated`: the payment's doing, not the customer's — no `method_selected` entry (0025 addendum, 2026-11-29, multi-quote)
        data: { checkout_id: m.checkoutId, rail: m.rail, asset: m.asset, network: m.network, expected_amount: fmt(m.expected, m.decimals), rate: { amount: m.rate, currency: state.currency }, quoted_amount: m.quoted, quote_ends_at: quote.quoteEndsAt, quote_ttl_ms: m.quoteTtlMs, reinstated: true },
      });
    } else if (review === null) {
      review = 'superseded_quote';
    }
  }
  events.push({
    type: 'PaymentTransferDetected',
    data: { checkout_id: command.checkoutId, tx_hash: command.txHash, network: command.network, amount: fmt(parse(command.amount, method.decimals), method.decimals), review, ...(command.fromAddress ? { from_address: command.fromAddress } : {}), transferred_at: command.transferredAt ?? ctx.now.toISOString() },
  });
  if (review !== null && opensReview(state)) {
    events.push({ type: 'PaymentNeedsReview', data: { checkout_id: command.checkoutId, reason: review, tx_hash: command.txHash } });
  }
  return events;
}

/** A transfer the payment saw is withdrawn: it was never counted (only confirmed transfers are), so only the record goes. */
function withdrawTransfer(command: WithdrawPaymentTransfer, state: LivePaymentState): PaymentEvent[] {
  // this checkout's output only: another checkout's output of the same transaction is withdrawn by its own checkout
  const transfer = state.transfers[transferKey(command.checkoutId, command.txHash)];
  if (!transfer || (transfer.required > 0 && transfer.current >= transfer.required)) return [];
  const decimals = state.quotes[transfer.checkoutId]?.method.decimals ?? state.method?.decimals ?? 0;
  return [{ type: 'PaymentTransferWithdrawn', data: { checkout_id: transfer.checkoutId, tx_hash: command.txHash, network: transfer.network, amount: fmt(transfer.amount, decimals) } }];
}

function recordConfirmations(command: RecordConfirmations, state: LivePaymentState, ctx: DecideContext): PaymentEvent[] {
  const method = methodOf(state);
  const key = transferKey(command.checkoutId, command.txHash);
  const transfer = state.transfers[key];
  if (!transfer) {
    // A stream stored while the payment knew transfers by hash alone may have dropped this
    // checkout's output, taking it for another checkout's of the same transaction: nothing to record.
    if (Object.values(state.transfers).some((t) => t.txHash === command.txHash)) return [];
    throw new Error(`no transfer ${command.txHash} of checkout ${command.checkoutId} on payment ${state.id}`);
  }
  const already = transfer.required === 0 ? 0 : transfer.current;
  const target = Math.min(command.current, command.required);
  const events: PaymentEvent[] = [];
  for (let n = already + 1; n <= target; n++) {
    events.push({ type: 'PaymentConfirmationRecorded', data: { checkout_id: transfer.checkoutId, tx_hash: command.txHash, current: n, required: command.required } });
  }
  if (events.length === 0 || target < command.required || transfer.review !== null) return events;
  if (state.status === 'succeeded') {
    if (countsAfterSuccess(state, method, transfer)) events.push(countedAfterSuccess(state, method, transfer));
    return events;
  }
  // §3 "payment | any | confirmations reach required → succeeded": a payment under review for a
  // claim alone (an assertion: no money seen) that then receives all it is due on a counted transfer
  // succeeds; a short one leaves the review to the business. Under review for money that did arrive
  // (a late, wrong-network or superseded-quote transfer, a card charged too), the business decides:
  // succeeding would hide a second payment to refund. Canceled, failed or succeeded: decided already.
  const underReview = state.status === 'needs_review';
  if (underReview ? moneyUnderReview(state) : state.status !== 'pending' && state.status !== 'underpaid') return events;
  // Another counted transfer is still confirming (a second transfer while confirming, 0009): it decides.
  if (Object.entries(state.transfers).some(([other, t]) => other !== key && t.review === null && (t.required === 0 || t.current < t.required))) return events;
  const received = state.received + transfer.amount;
  if (received >= method.expected) {
    if (state.checkouts[transfer.checkoutId]?.remainder) {
      events.push({ type: 'PaymentRemainderPaid', data: { checkout_id: transfer.checkoutId, amount: fmt(transfer.amount, method.decimals) } });
    }
    events.push(succeeded(state, method, received, false, command.transactionFeeMinor ?? 0));
    return events;
  }
  if (underReview) return events;
  events.push({
    type: 'PaymentUnderpaid',
    data: {
      expected: fmt(method.expected, method.decimals),
      received: fmt(received, method.decimals),
      remaining: fmt(remaining(method.expected, received), method.decimals),
      amount_received: valueOf(method, received),
      // §4: the short transfer's quote is held for the quote life (15 minutes by default) after the
      // transfer itself, not its confirmation (decision 0009, addendum 2026-11-30); the checkout applies the same rule
      quote_ends_at: shortQuoteEnd(state.quoteEndsAt, countedTransferTimes(state), method.quoteTtlMs, ctx.now),
    },
  });
  return events;
}

/**
 * Whether a transfer that reached its confirmations after the payment succeeded is counted (0025
 * addendum, 2026-11-28): the customer sent it to a checkout of the payment that had completed —
 * detected after success, not under review (so on that checkout's network, the quoted one, and
 * not on a quote set aside) — in the payment's coin, and the payment succeeded on its own
 * crypto transfers. An accepted payment counts what the business accepted (money after it stays
 * a second payment to refund, 0011 addendum); one paid by card counts the charge.
 */
function countsAfterSuccess(state: LivePaymentState, method: PaymentMethodState, transfer: PaymentTransferState): boolean {
  if (!transfer.afterSuccess || transfer.review !== null || state.accepted || state.rail !== 'crypto') return false;
  return transfer.network === method.network && (state.quotes[transfer.checkoutId]?.method.asset ?? method.asset) === method.asset;
}

/** The payment's totals once a transfer after success counts: what arrived and what is over the quote. */
function countedAfterSuccess(state: LivePaymentState, method: PaymentMethodState, transfer: PaymentTransferState): PaymentEvent {
  const received = state.received + transfer.amount;
  const over = overpaid(method.expected, received);
  return {
    type: 'PaymentTransferCountedAfterSuccess',
    data: { checkout_id: transfer.checkoutId, tx_hash: transfer.txHash, amount: fmt(transfer.amount, method.decimals), received_amount: fmt(received, method.decimals), overpaid_amount: over > 0n ? fmt(over, method.decimals) : null },
  };
}

function valueOf(method: PaymentMethodState, received: bigint): number {
  // after a remainder quoted afresh (0020): what had arrived keeps its value, the rest counts at the remainder's rate (below the quote until it is all there)
  if (method.base !== undefined && received < method.expected) {
    const { units, value } = method.base;
    return value + money(() => fiatValueOf(received - units, method.rate, method.decimals));
  }
  return money(() => receivedValueMinor({ quotedMinor: method.quoted, expected: method.expected, received, rateMinorPerCoin: method.rate, decimals: method.decimals }));
}

/**
 * `others` (an acceptance counting other quotes, 0025 addendum 2026-11-29): the value of what
 * reached them, added to the method's, and the method coin's units on every quote (`inCoin`), which
 * the coin strings name.
 */
function succeeded(state: LivePaymentState, method: PaymentMethodState, received: bigint, accepted: boolean, transactionFeeMinor: number, others?: { otherValue: number; inCoin: bigint }): PaymentEvent {
  const amountReceived = valueOf(method, received) + (others?.otherValue ?? 0);
  const coinUnits = others?.inCoin ?? received;
  const over = overpaid(method.expected, coinUnits);
  const reporting = money(() =>
    buildReporting({ currency: state.currency, amountReceivedMinor: amountReceived, feeRateBps: state.feeRateBps, transactionFeeMinor, customerFeeMinor: state.customerFee, feePayer: state.feePayer }),
  );
  return {
    type: 'PaymentSucceeded',
    data: { amount_received: amountReceived, received_amount: fmt(coinUnits, method.decimals), overpaid_amount: over > 0n ? fmt(over, method.decimals) : null, accepted, reporting },
  };
}

function checkoutEnded(command: RecordCheckoutEnded, state: LivePaymentState): PaymentEvent[] {
  const known = state.checkouts[command.checkoutId];
  if (!known || !known.open) return [];
  const events: PaymentEvent[] = [{ type: 'PaymentCheckoutEnded', data: { checkout_id: command.checkoutId, outcome: command.outcome } }];
  // the checkout the payment is paid through now: its card checkout on the card rail (card audit, 2026-11-28)
  const current = (state.rail === 'card' ? state.cardMethod?.checkoutId : state.method?.checkoutId) === command.checkoutId;
  // a link's payment lives by its checkout (decision 0030): canceled by the customer, or expired with
  // nothing sent (0009 addendum, nineteenth session), it fails, and the link's page makes a new one
  if ((command.outcome === 'canceled' || command.outcome === 'expired') && state.linkId !== null && current && state.status === 'pending' && !inFlight(state)) {
    events.push({ type: 'PaymentFailed', data: command.outcome === 'canceled' ? { reason: 'canceled', failure_code: 'checkout_canceled' } : { reason: 'expired', failure_code: 'checkout_expired' } });
  }
  return events;
}

function recordClaim(command: RecordClaim, state: LivePaymentState): PaymentEvent[] {
  const txHash = normalizeTxHash(command.network, command.txHash);
  if (state.claimTxHash === txHash) return [];
  if (state.status === 'succeeded') throw new PaymentDomainError('payment_paid', 'The payment has succeeded.');
  if (state.claimTxHash !== null && state.status === 'needs_review') throw new PaymentDomainError('already_claimed', 'A claim is already under review.');
  return [{ type: 'PaymentClaimed', data: { checkout_id: command.checkoutId, tx_hash: txHash, network: command.network } }];
}

function requestRemainder(command: RequestRemainder, state: LivePaymentState, ctx: DecideContext): PaymentEvent[] {
  if (state.status !== 'underpaid') throw new PaymentDomainError('payment_not_underpaid', 'Only an underpaid payment has a remainder.');
  // a transfer on its way (detected, not final, not under review) decides first (0009 addendum, 2026-11-29, twentieth session)
  const confirming = onTheWay(state);
  if (confirming !== null) {
    const method = methodOf(state);
    if (state.received + confirming >= method.expected) {
      throw new PaymentDomainError('nothing_due', 'A transfer covering what is left is confirming: nothing is left to collect unless it fails to confirm.');
    }
    // once confirmed its quote is held for the rest from the transfer's time (as PaymentUnderpaid records it; 0009
    // addendum, 2026-11-30), and not before it is confirmed: the earliest that can end is that end, or now when that
    // end is past — the refusal carries it, as every "quote still live" one carries its end (§4; 0009 addendum,
    // 2026-11-29, recheck audit N2); once confirmed, the answer carries the end itself
    const earliest = laterOf(shortQuoteEnd(state.quoteEndsAt, countedTransferTimes(state), method.quoteTtlMs, ctx.now), ctx.now.toISOString());
    throw new PaymentDomainError(
      'remainder_unavailable',
      `A transfer that leaves part of the rest due is confirming: once it is confirmed its quote is held for the rest, until ${earliest} at the earliest, and what is left can be requested when that quote ends.`,
      null,
      earliest,
    );
  }
  if (state.remainderCheckoutId !== null) {
    // the same checkout is returned while it is open; once part of the rest arrived on it, the
    // quote is held for the customer to top up that checkout, as after the first short transfer (§4)
    const remainderId = state.remainderCheckoutId;
    const toppedUp = Object.values(state.transfers).some((t) => t.checkoutId === remainderId && t.review === null);
    if (toppedUp && state.quoteEndsAt !== null && ctx.now.getTime() < Date.parse(state.quoteEndsAt)) {
      throw new PaymentDomainError('remainder_unavailable', `The quote is still live until ${state.quoteEndsAt}.`, null, state.quoteEndsAt);
    }
    return [];
  }
  const method = methodOf(state);
  const left = remaining(method.expected, state.received);
  if (left === 0n) throw new PaymentDomainError('nothing_due', 'Nothing is left to collect.');
  // the short transfer's quote is held for the customer to top up, unless its checkout ended (canceled by the customer, failed)
  const held = state.checkouts[method.checkoutId]?.open ?? true;
  if (held && state.quoteEndsAt !== null && ctx.now.getTime() < Date.parse(state.quoteEndsAt)) {
    throw new PaymentDomainError('remainder_unavailable', `The quote is still live until ${state.quoteEndsAt}.`, null, state.quoteEndsAt);
  }
  if (!command.hasCheckoutPage) throw new PaymentDomainError('remainder_unavailable', 'No checkout page is left for this payment.');
  const amount = method.quoted - state.amountReceived;
  const rate = command.rate;
  // 0009: exactly the units left, at the method's rate; 0020: at another rate, the fiat left quoted afresh (rounded UP, as every quote)
  const quoted = rate === undefined || rate.rateMinorPerCoin === method.rate ? left : money(() => quoteCryptoAmount({ priceMinor: amount, rateMinorPerCoin: rate.rateMinorPerCoin, decimals: method.decimals }));
  // 0025 addendum (2026-11-28, later): a remainder goes to a fresh address, which takes no less than the network's minimum
  // (SOL's rent-exempt minimum, Bitcoin's dust limit): quoted at that minimum, the excess counted as overpaid
  const minimum = BigInt(carried(method.asset, method.network).minimumTransfer);
  const units = quoted < minimum ? minimum : quoted;
  return [
    {
      type: 'PaymentRemainderRequested',
      data: {
        checkout_id: command.checkoutId,
        amount,
        currency: state.currency,
        crypto_amount: fmt(units, method.decimals),
        asset: method.asset,
        network: method.network,
        ...(command.reserved ? { address: command.reserved.address, wallet_id: command.reserved.walletId, address_index: command.reserved.index } : {}),
        ...(rate !== undefined ? { rate: { amount: rate.rateMinorPerCoin, currency: state.currency, source: rate.source, at: rate.at } } : {}),
      },
    },
  ];
}

/**
 * The units of the method's coin on their way to the payment — transfers detected and not final,
 * not under review — or null when none is (request-remainder: the customer already sent them).
 */
/**
 * The times of the transfers the payment counts (not under review, not after success): the quote
 * of a short transfer is held from the latest of them (decision 0009, addendum 2026-11-30).
 */
function countedTransferTimes(state: LivePaymentState): (string | null)[] {
  return Object.values(state.transfers)
    .filter((t) => t.review === null && !t.afterSuccess)
    .map((t) => t.at ?? null);
}

function onTheWay(state: LivePaymentState): bigint | null {
  const asset = state.method?.asset ?? null;
  const moving = Object.values(state.transfers).filter((t) => t.review === null && !t.afterSuccess && (t.required === 0 || t.current < t.required) && checkoutAsset(state, t.checkoutId) === asset);
  return moving.length === 0 ? null : moving.reduce((sum, t) => sum + t.amount, 0n);
}

/**
 * What accepting the payment counts: its card charges when it has card charges and no transfer nor
 * claim (decision 0026), else the crypto that arrived on every quote, each at its own rate (or the claimed quote).
 * The process manager reads the same rule to tell which checkouts in review were counted (0025
 * addendum, 2026-11-29).
 */
export function acceptCountsCard(state: LivePaymentState): boolean {
  return Object.keys(state.cardCharges).length > 0 && Object.keys(state.transfers).length === 0 && state.claimTxHash === null;
}

/** The coin a crypto checkout of the payment was quoted in (a remainder's is the method's); null before any method. */
function checkoutAsset(state: LivePaymentState, checkoutId: string): AssetCode | null {
  return state.quotes[checkoutId]?.method.asset ?? state.method?.asset ?? null;
}

function accept(command: AcceptPayment, state: LivePaymentState): PaymentEvent[] {
  // §7: only underpaid and needs_review payments can be accepted — one accepted already is succeeded,
  // so accepting it again is refused too (a retry with its Idempotency-Key replays the first answer)
  if (state.status !== 'underpaid' && state.status !== 'needs_review') {
    throw new PaymentDomainError('payment_not_acceptable', 'Only underpaid and needs_review payments can be accepted.');
  }
  // a counted transfer still confirming (0025 addendum, 2026-11-29, later): what it brings is not known
  // until it is final — accepting now would count nothing of it, and once final it would be counted
  // nowhere (the payment had succeeded without it). The business accepts once it is confirmed.
  if (inFlight(state)) throw new PaymentDomainError('payment_in_flight', 'A transfer to this payment is still confirming: accept it once the transfer is confirmed.');
  // a card charge under review (decision 0026): accepting it counts what the card was charged
  if (acceptCountsCard(state)) {
    const charged = Object.values(state.cardCharges).reduce((sum, c) => sum + c.amount, 0);
    return [{ type: 'PaymentAccepted', data: { counted_amount: fiatDecimal(charged, state.currency) } }, cardSucceeded(state, charged, true)];
  }
  const method = methodOf(state);
  // What arrived counts (on any network), each quote's coin at that quote's own locked rate (0025
  // addendum, 2026-11-29, multi-quote): the method's quote and its remainders as one, an accepted
  // claim counting the method's full quote; every other quote of the payment on its own, never
  // added as the method coin's units (audit, 2026-11-28) nor left out (audit M1, 2026-11-29).
  const arrived = quoteUnits(state, (t) => t.review !== null);
  const own = (arrived.get(method.checkoutId) ?? 0n) + state.received;
  const counted = state.claimTxHash !== null && own < method.expected ? method.expected : own;
  const others = [...arrived].filter(([id]) => id !== method.checkoutId).map(([id, units]) => ({ quote: state.quotes[id]!.method, units }));
  // the coin strings (received_amount, overpaid_amount) are in the method's coin: its units on every quote in that coin
  const inCoin = others.filter((o) => o.quote.asset === method.asset).reduce((sum, o) => sum + o.units, counted);
  const otherValue = others.reduce((sum, o) => sum + valueOf(o.quote, o.units), 0);
  return [
    { type: 'PaymentAccepted', data: { counted_amount: fmt(inCoin, method.decimals) } },
    succeeded(state, method, counted, true, command.transactionFeeMinor ?? 0, { otherValue, inCoin }),
  ];
}

/**
 * The units of the payment's transfers that `take` selects, by the quote they paid: the current
 * method's quote (its own checkout and every remainder checkout, which collect the method's coin)
 * under the method's checkout id, each other quote the payment was offered under its own.
 */
function quoteUnits(state: LivePaymentState, take: (t: PaymentTransferState) => boolean): Map<string, bigint> {
  const method = methodOf(state);
  const units = new Map<string, bigint>();
  for (const t of Object.values(state.transfers)) {
    if (!take(t)) continue;
    const quote = state.quotes[t.checkoutId];
    const id = quote !== undefined && quote.method.checkoutId !== method.checkoutId ? t.checkoutId : method.checkoutId;
    units.set(id, (units.get(id) ?? 0n) + t.amount);
  }
  return units;
}

/**
 * The value of everything that reached the payment's crypto quotes — every transfer recorded,
 * under review or not, confirmed or not — each quote's coin at that quote's own rate (decision
 * 0007's rules per quote: its total plus the floor of what is over it, or the floor of what
 * arrived): whether the payment as a whole holds its price, so that no checkout of it asks for
 * more (0025 addendum, 2026-11-29, multi-quote). 0 before a crypto method.
 */
export function arrivedValueMinor(state: LivePaymentState): number {
  if (state.method === null) return 0;
  const method = state.method;
  let value = 0;
  for (const [id, units] of quoteUnits(state, () => true)) value += valueOf(id === method.checkoutId ? method : state.quotes[id]!.method, units);
  return value;
}

function cancelPayment(state: LivePaymentState): PaymentEvent[] {
  if (state.status === 'canceled') return [];
  if (state.linkId !== null) throw new PaymentDomainError('payment_not_cancelable', 'A payment that came from a link cannot be canceled.');
  if (state.status !== 'pending') throw new PaymentDomainError('payment_not_cancelable', `${article(state.status)} ${state.status} payment cannot be canceled.`);
  if (inFlight(state)) throw new PaymentDomainError('payment_in_flight', 'A transfer is on its way; the payment cannot be canceled.');
  return [{ type: 'PaymentCanceled', data: { payment_id: state.id } }];
}

function expirePayment(state: LivePaymentState, ctx: DecideContext): PaymentEvent[] {
  if (state.status !== 'pending' || state.expiresAt === null) return [];
  if (ctx.now.getTime() < Date.parse(state.expiresAt)) return []; // an early timer changes nothing
  if (inFlight(state)) return []; // the transfer on its way decides
  if (paymentSightingHolds(state, ctx.now)) return []; // a transaction seen in the mempool in time decides, mined or dropped
  return [{ type: 'PaymentExpired', data: { failure_code: 'payment_expired' } }];
}

/** The payment aggregate as one Decider: what the command runner and the given/when/then tests use. */
export const paymentDecider: Decider<PaymentCommand, PaymentEvent, PaymentState, DecideContext> = { initialState: initialPaymentState, decide: decidePayment, evolve: evolvePayment };
