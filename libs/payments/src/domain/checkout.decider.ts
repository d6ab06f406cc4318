import { AssetCode, NetworkId, confirmationsRequired, isValidTxHash, normalizeTxHash, otherEvmNetworksCarrying } from '@lib/chains';
import { FeePayer, MoneyError, buildBreakdown, overpaid, quoteCryptoAmount, remaining, simulatedOverpaid, simulatedUnderpaid, validateCardPrice } from '@lib/money';
import { CardAttemptStatus, CardReviewReason, CheckoutEvent, CheckoutReviewReason, CheckoutReviewResolution } from './checkout.events';
import { CommandHandlers, Decider, article, decideBy, foldWith, ignoreUnknown, repeatedCreation, unhandled } from '@lib/domain';
import { PaymentDomainError } from './errors';
import { DecideContext, REMAINDER_WAIT_MS, SIGHTING_HOLD_MS, carried, fmt, money, parse, shortQuoteEnd, transferTime } from './shared';

/**
 * The checkout aggregate's decider (one attempt to pay a payment): pure functions over the
 * events of one `checkout-<chk_id>` stream. Time comes in through the context, ids and rates
 * through the commands. Both rails: a crypto checkout is a quote watched on a chain; a card
 * checkout (decision 0026) is a list of routes (card processors) its attempts take in turn, one
 * at a time. Crypto-only commands on a card checkout are refused with wrong_rail (claim,
 * mark-sent) or change nothing (a chain's reports, the quote timer).
 */

export type CheckoutStatus = 'open' | 'awaiting_customer' | 'confirming' | 'completed' | 'needs_review' | 'expired' | 'canceled' | 'failed';

/** A transaction to the checkout's address seen unconfirmed while the quote was live (nothing counted). */
export interface CheckoutSighting {
  txHash: string;
  amount: bigint;
  sightedAt: string;
}

export interface CheckoutTransfer {
  txHash: string;
  network: NetworkId;
  amount: bigint;
  /** Confirmations recorded for this transfer. */
  current: number;
  /** The confirmations that make it final: its own network's (the quoted network's `required`, or another's). */
  required: number;
  /** When it was made (`transferTime`: its block's time if earlier than when it was seen); null on events stored before. */
  at?: string | null;
}

/** What every checkout has, whatever its rail. */
interface CheckoutBaseState {
  status: CheckoutStatus;
  id: string;
  paymentId: string;
  linkId: string | null;
  remainder: boolean;
  simulated: boolean;
  superseded: boolean;
  canceledBy: 'customer' | null;
  reviewReason: CheckoutReviewReason | null;
  failureCode: string | null;
  /** The business (null in pure tests that leave details out). */
  businessId: string | null;
  email: string | null;
}

/** One card attempt (decision 0026). */
export interface CardAttemptState {
  id: string;
  number: number;
  route: number;
  processor: string;
  ref: string;
  secureUrl: string;
  expiresAt: string;
  status: CardAttemptStatus;
  declineCode: string | null;
  retryable: boolean;
}

/** A card checkout (decision 0026). */
export interface CardCheckoutState extends CheckoutBaseState {
  rail: 'card';
  /** The processors its attempts may use, in order (route n is routes[n - 1]). */
  routes: readonly string[];
  attempts: readonly CardAttemptState[];
  attemptTtlMs: number;
  /** What the card is charged (breakdown total) and its currency. */
  total: number;
  currency: string;
  country: string | null;
  brand: string | null;
  last4: string | null;
  /** The checkout failed on an attempt's result (a decline, a timeout): another attempt or a supersede may follow. */
  failedByAttempt: boolean;
}

export type OpenCheckoutState = CryptoCheckoutState | CardCheckoutState;

export interface CryptoCheckoutState extends CheckoutBaseState {
  rail: 'crypto';
  asset: AssetCode;
  network: NetworkId;
  decimals: number;
  /** Units due on this checkout (the quote). */
  expected: bigint;
  /** Units received on the quoted network. */
  received: bigint;
  transfers: readonly CheckoutTransfer[];
  /** Transactions seen in the mempool while the quote was live, not mined yet nor dropped: they hold the quote. */
  sightings: readonly CheckoutSighting[];
  /** The latest transfer (the one shown as confirming). Every transfer's own count is in `transfers`. */
  confirmingTx: string | null;
  /** The shown transfer's count and the confirmations its network requires (shown on the checkout). */
  confirmations: { current: number; required: number };
  /** The quoted network's required confirmations (CheckoutOpened `confirmations_required`). */
  required: number;
  expiresAt: string;
  /** The quote's life: how long it is held again after a short transfer (§4, 15 minutes by default). */
  quoteTtlMs: number;
  claimTxHash: string | null;
  /** What the automatic simulated arrival sends (POST /checkouts `simulate`), default exact. */
  simulate: Exclude<SimulatedTransfer, 'late'> | null;
  /** The payment holds its price through its quotes together (CheckoutPaymentCovered): nothing more is due here. */
  covered?: true;
}

export type CheckoutState = { status: 'none' } | OpenCheckoutState;

export const initialCheckoutState: CheckoutState = Object.freeze({ status: 'none' });

/** Who and what a checkout is for (OpenCryptoCheckout `details`), recorded on CheckoutOpened. */
export interface CheckoutDetails {
  business_id: string;
  email: string | null;
  country: string | null;
  success_url: string | null;
  replaces: string | null;
  /** Testing only: what the automatic simulated arrival sends (`late` is refused on POST /checkouts). */
  simulate: Exclude<SimulatedTransfer, 'late'> | null;
}

export interface OpenCryptoCheckout {
  type: 'OpenCheckout';
  checkoutId: string;
  paymentId: string;
  linkId: string | null;
  rail: 'crypto';
  simulated: boolean;
  asset: AssetCode;
  network: NetworkId;
  address: string;
  /** The wallet the address was reserved in and its derivation index (WalletAddresses.reserve); null for an address from no wallet (stored events before wallets). */
  wallet?: { walletId: string; index: number } | null;
  /** Minor units of `currency` per whole coin. */
  rateMinorPerCoin: number;
  /** Where the rate came from and the time of its price, recorded with it (decision 0020). */
  rateOrigin?: { source: string; at: string };
  currency: string;
  /** The payment's price (minor units). */
  priceMinor: number;
  feePayer: FeePayer;
  feeRateBps: number;
  /** A remainder checkout: exactly the units left (decimal string) and their fiat value; null otherwise. */
  remainder: { amount: string; priceMinor: number } | null;
  quoteTtlMs: number;
  /** Who and what the checkout is for; recorded on CheckoutOpened. */
  details?: CheckoutDetails;
}

/** A card checkout (decision 0026): the payment's price and fee rule, the routes the handler found for the business and country. */
export interface OpenCardCheckout {
  type: 'OpenCardCheckout';
  checkoutId: string;
  paymentId: string;
  linkId: string | null;
  simulated: boolean;
  currency: string;
  priceMinor: number;
  feePayer: FeePayer;
  feeRateBps: number;
  routes: readonly string[];
  attemptTtlMs: number;
  details?: Omit<CheckoutDetails, 'simulate'>;
}
/** POST /checkouts/{id}/card-attempts: an attempt on the next route, whose secure page the processor created. */
export interface StartCardAttempt {
  type: 'StartCardAttempt';
  attemptId: string;
  /** The route the page shows (stale_route when it is not the checkout's); absent: no check. */
  route?: number;
  /** The processor the handler created the attempt at (the next route's). */
  processor: string;
  ref: string;
  secureUrl: string;
  expiresAt: string;
}
/** What a processor said of an attempt (its results sink, the customer's return, the expiry timer). */
export interface RecordCardResult {
  type: 'RecordCardResult';
  attemptId: string;
  result: { status: 'succeeded'; brand: string; last4: string; amountMinor: number; currency: string } | { status: 'declined'; declineCode: string; retryable: boolean; brand: string | null; last4: string | null };
}
/** The attempt's expiry timer: the processor never answered. */
export interface TimeOutCardAttempt {
  type: 'TimeOutCardAttempt';
  attemptId: string;
}

export interface CancelCheckout {
  type: 'CancelCheckout';
}
export interface SupersedeCheckout {
  type: 'SupersedeCheckout';
  /**
   * `customer`: POST /checkouts/{id}/supersede, refused once the checkout cannot be replaced (§4);
   * `payment`: the payment setting its earlier quotes aside when a new one opens, which has
   * nothing to do on a quote that ended meanwhile (a reaction must stay retry-safe).
   */
  by: 'customer' | 'payment';
}
export interface ClaimCheckout {
  type: 'ClaimCheckout';
  txHash: string;
  email?: string | null;
  /** Read from the payment by the handler: a succeeded payment takes no claim. */
  paymentSucceeded: boolean;
  /** Read from the payment by the handler: the hash of a claim under review on another checkout, if any. */
  paymentClaimTxHash?: string | null;
}
export type SimulatedTransfer = 'exact' | 'underpaid' | 'overpaid' | 'wrong_network' | 'late';
export interface MarkSent {
  type: 'MarkSent';
  simulate: SimulatedTransfer;
  /** The simulated transfer's hash (an id from the caller). */
  txHash: string;
  /** The sender's address, when known. */
  fromAddress?: string | null;
}
/** A transfer a chain watcher saw to the checkout's address. */
export interface DetectTransfer {
  type: 'DetectTransfer';
  txHash: string;
  fromAddress?: string | null;
  network: NetworkId;
  amount: string;
  /** When its block was made (ISO 8601), as the chain states it: its lateness is judged by it. */
  minedAt?: string | null;
}
/** A chain watcher saw a transaction paying the checkout's address unconfirmed (in its node's mempool). */
export interface SightTransfer {
  type: 'SightTransfer';
  txHash: string;
  network: NetworkId;
  amount: string;
}
/** A chain watcher found a sighted transaction gone from the mempool without being mined (dropped or replaced). */
export interface DropSighting {
  type: 'DropSighting';
  txHash: string;
}
/** A chain watcher saw the transfer's block leave the canonical chain before it was final. */
export interface WithdrawTransfer {
  type: 'WithdrawTransfer';
  txHash: string;
}
export interface RecordCheckoutConfirmations {
  type: 'RecordConfirmations';
  txHash: string;
  current: number;
}
/** The quote timer. */
export interface ExpireCheckout {
  type: 'ExpireCheckout';
}
export interface FailCheckout {
  type: 'FailCheckout';
  failureCode: string;
}
/**
 * The process manager, when the payment succeeds while it is in review (0025 addendum,
 * 2026-11-29): a checkout in `needs_review` leaves it. `counted`: what this checkout reviewed
 * (its transfers, its claim, its card charge) is in what the payment counted — read from the
 * payment by the process manager — so it completes; otherwise it fails with `payment_succeeded`.
 * Any other status: nothing to do (the reaction goes to every checkout of the payment).
 */
export interface ResolveReview {
  type: 'ResolveReview';
  resolution: CheckoutReviewResolution;
  counted: boolean;
}
/**
 * The process manager, when the payment recorded this checkout's transfer as a second payment
 * (`superseded_quote`: the payment already takes another quote's money; 0025 addendum,
 * 2026-11-29, multi-quote): the checkout is in review for it (`duplicate_payment`).
 */
export interface ReviewDuplicatePayment {
  type: 'ReviewDuplicatePayment';
  txHash: string;
}
/**
 * The process manager, when the payment as a whole holds its price through its quotes together
 * (0025 addendum, 2026-11-29, multi-quote): nothing more is due on this checkout. `succeeded`:
 * the payment succeeded after it was short or in review (0012 addendum, 2026-11-29, paid; api
 * audit L3): only a checkout something reached that is still short of its quote is told.
 */
export interface RecordPaymentCovered {
  type: 'RecordPaymentCovered';
  succeeded?: true;
}

/**
 * The process manager, when the payment recorded this checkout's card charge for review
 * (PaymentCardCharged with a `review`): a card checkout that completed on that attempt goes to
 * `needs_review` with the payment's reason. Any other status (already in review, failed …):
 * nothing — the checkout decided its own review then.
 */
export interface HoldCardCharge {
  type: 'HoldCardCharge';
  attemptId: string;
  reason: CardReviewReason;
}

export type CheckoutCommand =
  | OpenCryptoCheckout
  | OpenCardCheckout
  | StartCardAttempt
  | RecordCardResult
  | TimeOutCardAttempt
  | CancelCheckout
  | SupersedeCheckout
  | ClaimCheckout
  | MarkSent
  | DetectTransfer
  | SightTransfer
  | DropSighting
  | WithdrawTransfer
  | RecordCheckoutConfirmations
  | ExpireCheckout
  | FailCheckout
  | ResolveReview
  | HoldCardCharge
  | ReviewDuplicatePayment
  | RecordPaymentCovered;

/** What each command decides on a checkout that exists (OpenCheckout is the one that starts it). */
const CHECKOUT_COMMANDS: CommandHandlers<Exclude<CheckoutCommand, OpenCryptoCheckout | OpenCardCheckout>, OpenCheckoutState, DecideContext, CheckoutEvent> = {
  CancelCheckout: (_command, state, ctx) => cancel(state, ctx),
  SupersedeCheckout: (command, state, ctx) => supersede(command, state, ctx),
  ClaimCheckout: cryptoOnly('Claims are for crypto checkouts.', claim),
  MarkSent: cryptoOnly('Simulated transfers are for crypto checkouts.', markSent),
  DetectTransfer: cryptoOnly(null, (command, state, ctx) => detect(state, ctx, command.txHash, command.network, parse(command.amount, state.decimals), false, false, command.fromAddress ?? null, command.minedAt ?? null)),
  SightTransfer: cryptoOnly(null, sight),
  DropSighting: cryptoOnly(null, dropSighting),
  RecordConfirmations: cryptoOnly(null, confirm),
  WithdrawTransfer: cryptoOnly(null, withdraw),
  ExpireCheckout: cryptoOnly(null, (_command, state, ctx) => expire(state, ctx)),
  FailCheckout: fail,
  ResolveReview: resolveReview,
  HoldCardCharge: cardOnly(holdCardCharge),
  ReviewDuplicatePayment: cryptoOnly(null, reviewDuplicate),
  RecordPaymentCovered: cryptoOnly(null, (command, state) => paymentCovered(command, state)),
  StartCardAttempt: cardOnly(startAttempt),
  RecordCardResult: cardOnly(recordCardResult),
  TimeOutCardAttempt: cardOnly(timeOutAttempt),
};

/** A crypto command: on a card checkout refused with wrong_rail (`refusal`), or nothing to do (null: a chain's reports, the quote timer). */
function cryptoOnly<C>(refusal: string | null, handler: (command: C, state: CryptoCheckoutState, ctx: DecideContext) => CheckoutEvent[]) {
  return (command: C, state: OpenCheckoutState, ctx: DecideContext): CheckoutEvent[] => {
    if (state.rail === 'crypto') return handler(command, state, ctx);
    if (refusal === null) return [];
    throw new PaymentDomainError('wrong_rail', refusal);
  };
}

/** A card command: refused with wrong_rail on a crypto checkout. */
function cardOnly<C>(handler: (command: C, state: CardCheckoutState, ctx: DecideContext) => CheckoutEvent[]) {
  return (command: C, state: OpenCheckoutState, ctx: DecideContext): CheckoutEvent[] => {
    if (state.rail !== 'card') throw new PaymentDomainError('wrong_rail', 'Card attempts are for card checkouts; this is a crypto checkout.');
    return handler(command, state, ctx);
  };
}

export function decideCheckout(command: CheckoutCommand, state: CheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (command.type === 'OpenCheckout') return open(command, state, ctx);
  if (command.type === 'OpenCardCheckout') return openCard(command, state);
  if (state.status === 'none') throw new PaymentDomainError('not_found', 'No such checkout.');
  return decideBy(CHECKOUT_COMMANDS, command, state, ctx);
}

export function evolveCheckout(state: CheckoutState, event: CheckoutEvent): CheckoutState {
  if (event.type === 'CardCheckoutOpened') {
    const d = event.data;
    return {
      status: 'open',
      rail: 'card',
      id: d.checkout_id,
      paymentId: d.payment_id,
      linkId: d.link_id,
      remainder: false,
      simulated: d.simulated,
      superseded: false,
      canceledBy: null,
      reviewReason: null,
      failureCode: null,
      businessId: d.business_id ?? null,
      email: d.email ?? null,
      routes: [...d.routes],
      attempts: [],
      attemptTtlMs: d.attempt_ttl_ms,
      total: d.breakdown.total,
      currency: d.breakdown.currency,
      country: d.country ?? null,
      brand: null,
      last4: null,
      failedByAttempt: false,
    };
  }
  if (event.type === 'CheckoutOpened') {
    const d = event.data;
    const { decimals } = carried(d.asset, d.network);
    return {
      status: 'open',
      id: d.checkout_id,
      paymentId: d.payment_id,
      businessId: d.business_id ?? null,
      email: d.email ?? null,
      simulate: d.simulate ?? null,
      linkId: d.link_id,
      rail: 'crypto',
      remainder: d.remainder,
      simulated: d.simulated,
      asset: d.asset,
      network: d.network,
      decimals,
      expected: parse(d.amount, decimals),
      received: 0n,
      transfers: [],
      sightings: [],
      confirmingTx: null,
      confirmations: { current: 0, required: d.confirmations_required },
      required: d.confirmations_required,
      expiresAt: d.expires_at,
      quoteTtlMs: d.quote_ttl_ms ?? REMAINDER_WAIT_MS,
      superseded: false,
      canceledBy: null,
      reviewReason: null,
      claimTxHash: null,
      failureCode: null,
    };
  }
  if (state.status === 'none') return state;
  if (event.type === 'CheckoutCanceled' || event.type === 'CheckoutSuperseded') return evolveEither(state, event);
  if (state.rail === 'card') return evolveCard(state, event);
  switch (event.type) {
    case 'CheckoutClaimed':
      return { ...state, status: 'needs_review', reviewReason: 'claimed', claimTxHash: event.data.tx_hash };
    case 'CheckoutTransferDetected': {
      const d = event.data;
      const amount = parse(d.amount, state.decimals);
      const onQuote = d.network === state.network;
      // final at its own network's depth (0025 addendum, 2026-11-29, own network); absent: the quoted network's
      const required = d.confirmations_required ?? state.required;
      return {
        ...state,
        status: state.status === 'open' || state.status === 'awaiting_customer' ? 'confirming' : state.status,
        received: onQuote ? state.received + amount : state.received,
        transfers: [...state.transfers, { txHash: d.tx_hash, network: d.network, amount, current: 0, required, at: transferTime(d.detected_at, d.mined_at) }],
        sightings: state.sightings.filter((s) => s.txHash !== d.tx_hash), // mined: it counts from here
        confirmingTx: d.tx_hash,
        confirmations: { current: 0, required },
      };
    }
    case 'CheckoutTransferSighted': {
      const d = event.data;
      return { ...state, sightings: [...state.sightings, { txHash: d.tx_hash, amount: parse(d.amount, state.decimals), sightedAt: d.sighted_at }] };
    }
    case 'CheckoutSightingDropped':
      return { ...state, sightings: state.sightings.filter((s) => s.txHash !== event.data.tx_hash) };
    case 'CheckoutTransferWithdrawn': {
      const d = event.data;
      const transfers = state.transfers.filter((t) => t.txHash !== d.tx_hash);
      const latest = transfers[transfers.length - 1] ?? null;
      return {
        ...state,
        status: d.status,
        received: parse(d.received_amount, state.decimals),
        transfers,
        confirmingTx: latest?.txHash ?? null,
        confirmations: { current: latest?.current ?? 0, required: latest?.required ?? state.required },
      };
    }
    case 'CheckoutConfirmationRecorded': {
      const d = event.data;
      const transfers = state.transfers.map((t) => (t.txHash === d.tx_hash ? { ...t, current: Math.max(t.current, d.current) } : t));
      // the checkout shows the latest transfer's count: another transfer's confirmations change only its own
      return { ...state, transfers, confirmations: d.tx_hash === state.confirmingTx ? { current: d.current, required: d.required } : state.confirmations };
    }
    case 'CheckoutCompleted':
      return { ...state, status: 'completed', reviewReason: null }; // a claim the chain settled is no longer under review
    case 'CheckoutAwaitingCustomer':
      return { ...state, status: 'awaiting_customer', expiresAt: event.data.expires_at };
    case 'CheckoutNeedsReview':
      return { ...state, status: 'needs_review', reviewReason: event.data.review_reason };
    case 'CheckoutExpired':
      return { ...state, status: 'expired', expiresAt: event.data.expires_at ?? state.expiresAt };
    case 'CheckoutFailed':
      return { ...state, status: 'failed', failureCode: event.data.failure_code };
    case 'CheckoutReviewResolved': // the review reason stays: why it was reviewed
      return { ...state, status: event.data.status, failureCode: event.data.failure_code };
    case 'CheckoutPaymentCovered':
      return { ...state, covered: true };
    case 'CheckoutCardAttemptStarted':
    case 'CheckoutCardAttemptSucceeded':
    case 'CheckoutCardAttemptDeclined':
    case 'CheckoutCardAttemptTimedOut':
    case 'CheckoutCardChargeHeld':
      return state; // card facts never reach a crypto checkout
    default:
      return ignoreUnknown(event, state);
  }
}

/** What a cancel or a supersession does to a checkout of either rail. */
function evolveEither(state: OpenCheckoutState, event: Extract<CheckoutEvent, { type: 'CheckoutCanceled' | 'CheckoutSuperseded' }>): CheckoutState {
  if (event.type === 'CheckoutCanceled') return { ...state, status: 'canceled', canceledBy: event.data.canceled_by };
  return { ...state, superseded: true };
}

function evolveCard(state: CardCheckoutState, event: CheckoutEvent): CheckoutState {
  const withAttempt = (id: string, change: Partial<CardAttemptState>) => state.attempts.map((a) => (a.id === id ? { ...a, ...change } : a));
  switch (event.type) {
    case 'CheckoutFailed':
      return { ...state, status: 'failed', failureCode: event.data.failure_code, failedByAttempt: false };
    case 'CheckoutReviewResolved':
      return { ...state, status: event.data.status, failureCode: event.data.failure_code, failedByAttempt: false };
    case 'CheckoutCardAttemptStarted': {
      const d = event.data;
      const attempt: CardAttemptState = { id: d.attempt_id, number: d.number, route: d.route, processor: d.processor, ref: d.ref, secureUrl: d.secure_url, expiresAt: d.expires_at, status: 'pending', declineCode: null, retryable: true };
      return { ...state, status: 'awaiting_customer', failureCode: null, failedByAttempt: false, attempts: [...state.attempts, attempt] };
    }
    case 'CheckoutCardAttemptSucceeded': {
      const d = event.data;
      return {
        ...state,
        status: d.status as CheckoutStatus,
        reviewReason: d.status === 'needs_review' && d.review_reason !== null ? d.review_reason : state.reviewReason,
        brand: d.brand,
        last4: d.last4,
        attempts: withAttempt(d.attempt_id, { status: 'succeeded' }),
      };
    }
    case 'CheckoutCardChargeHeld':
      return { ...state, status: 'needs_review', reviewReason: event.data.review_reason };
    case 'CheckoutCardAttemptDeclined': {
      const d = event.data;
      const attempts = withAttempt(d.attempt_id, { status: 'declined', declineCode: d.decline_code, retryable: d.retryable });
      return d.failed ? { ...state, attempts, status: 'failed', failureCode: d.decline_code, failedByAttempt: true, brand: d.brand ?? state.brand, last4: d.last4 ?? state.last4 } : { ...state, attempts };
    }
    case 'CheckoutCardAttemptTimedOut': {
      const d = event.data;
      const attempts = withAttempt(d.attempt_id, { status: 'timed_out' });
      return d.failed ? { ...state, attempts, status: 'failed', failureCode: CARD_TIMEOUT_CODE, failedByAttempt: true } : { ...state, attempts };
    }
    default:
      return state; // crypto facts never reach a card checkout; an unknown stored type changes nothing
  }
}

/** The failure_code of a card checkout whose attempt the processor never answered. */
export const CARD_TIMEOUT_CODE = 'processor_timeout';

/** The attempt in progress (pending and the latest), if any. */
export function pendingCardAttempt(state: CardCheckoutState): CardAttemptState | null {
  const last = state.attempts[state.attempts.length - 1];
  return last !== undefined && last.status === 'pending' ? last : null;
}

/**
 * The route (1-based) the next or current attempt uses: the pending attempt's, else the one after
 * the routes already used; once every route was used, the last one (a new attempt is no_route).
 */
export function cardRoute(state: CardCheckoutState): number {
  const pending = pendingCardAttempt(state);
  if (pending) return pending.route;
  return Math.min(state.attempts.length + 1, state.routes.length);
}

/** Why a card checkout cannot start an attempt now (the code it is refused with), or null. Pure; StartCardAttempt's rules in order. */
export function cardAttemptRefusal(state: CardCheckoutState, now: Date, route?: number): { code: 'checkout_not_awaiting' | 'stale_route' | 'route_in_progress' | 'checkout_not_retryable' | 'no_route'; message: string } | null {
  const waiting = state.status === 'open' || state.status === 'awaiting_customer' || (state.status === 'failed' && state.failedByAttempt);
  if (!waiting) return { code: 'checkout_not_awaiting', message: `${article(state.status)} ${state.status} checkout is not waiting for a card payment.` };
  if (route !== undefined && route !== cardRoute(state)) return { code: 'stale_route', message: 'The card payment page is out of date: reload the checkout.' };
  const pending = pendingCardAttempt(state);
  if (pending) return { code: 'route_in_progress', message: `The customer's payment on the current secure page may still go through (until ${pending.expiresAt}).` };
  const last = state.attempts[state.attempts.length - 1];
  if (last?.status === 'declined' && !last.retryable) return { code: 'checkout_not_retryable', message: `The card was declined (${last.declineCode}) and may not be tried again on this checkout.` };
  if (state.attempts.length >= state.routes.length) return { code: 'no_route', message: 'No further card attempt is available on this checkout.' };
  void now;
  return null;
}

/** Whether the checkout can take another attempt now (the card object's `retryable`). */
export function cardRetryable(state: CardCheckoutState, now: Date): boolean {
  return cardAttemptRefusal(state, now) === null;
}

function openCard(command: OpenCardCheckout, state: CheckoutState): CheckoutEvent[] {
  if (repeatedCreation('checkout', state.status === 'none' ? null : state.id, command.checkoutId)) return [];
  if (command.routes.length === 0) throw new PaymentDomainError('rail_unavailable', 'No card route is available for this checkout.', 'rail');
  const breakdown = money(() => buildBreakdown({ currency: command.currency, priceMinor: command.priceMinor, rail: 'card', feePayer: command.feePayer, feeRateBps: command.feeRateBps }));
  // §8 card price: what the card is charged (the breakdown's total), in the payment's own currency (decision 0026)
  try {
    validateCardPrice(breakdown.total, command.currency, 'amount');
  } catch (error) {
    if (error instanceof MoneyError && error.code === 'amount_out_of_range') throw new PaymentDomainError('amount_out_of_range', `The card price ${error.message.replace(/^card price /, '')}.`, 'amount');
    throw new PaymentDomainError('invalid_request', (error as Error).message, 'amount');
  }
  return [
    {
      type: 'CardCheckoutOpened',
      data: {
        checkout_id: command.checkoutId,
        payment_id: command.paymentId,
        link_id: command.linkId,
        rail: 'card',
        remainder: false,
        simulated: command.simulated,
        breakdown,
        routes: [...command.routes],
        attempt_ttl_ms: command.attemptTtlMs,
        ...command.details,
      },
    },
  ];
}

function startAttempt(command: StartCardAttempt, state: CardCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (state.attempts.some((a) => a.id === command.attemptId)) return []; // the same attempt again
  const refusal = cardAttemptRefusal(state, ctx.now, command.route);
  if (refusal) throw new PaymentDomainError(refusal.code, refusal.message, refusal.code === 'stale_route' ? 'route' : null);
  const route = state.attempts.length + 1;
  const processor = state.routes[route - 1];
  if (command.processor !== processor) throw new Error(`attempt ${command.attemptId} was created at ${command.processor}, but route ${route} is ${processor}`);
  return [
    {
      type: 'CheckoutCardAttemptStarted',
      data: { checkout_id: state.id, payment_id: state.paymentId, attempt_id: command.attemptId, number: state.attempts.length + 1, route, processor, ref: command.ref, secure_url: command.secureUrl, expires_at: command.expiresAt },
    },
  ];
}

/**
 * A processor's result of an attempt. Recorded once (a second report changes nothing). A charge
 * on the attempt the checkout waits for completes it; a charge on a checkout that no longer
 * waits for it (canceled: paid_after_cancel; failed, expired, completed otherwise:
 * paid_after_close) is for the business to review (§3). A decline of the awaited attempt fails
 * the checkout with its code.
 */
function recordCardResult(command: RecordCardResult, state: CardCheckoutState): CheckoutEvent[] {
  const attempt = state.attempts.find((a) => a.id === command.attemptId);
  if (!attempt) throw new PaymentDomainError('not_found', `No card attempt ${command.attemptId} on this checkout.`);
  if (attempt.status === 'succeeded' || attempt.status === 'declined') return []; // recorded already
  const awaited = state.status === 'awaiting_customer' && pendingCardAttempt(state)?.id === attempt.id;
  const base = { checkout_id: state.id, payment_id: state.paymentId, attempt_id: attempt.id };
  const result = command.result;
  if (result.status === 'declined') {
    if (attempt.status === 'timed_out') return []; // ended already; a late decline changes nothing
    return [{ type: 'CheckoutCardAttemptDeclined', data: { ...base, decline_code: result.declineCode, retryable: result.retryable, brand: result.brand, last4: result.last4, failed: awaited } }];
  }
  let status: CheckoutStatus = state.status;
  let review: CardReviewReason | null = null;
  if (awaited) status = 'completed';
  else {
    review = state.status === 'canceled' ? 'paid_after_cancel' : 'paid_after_close';
    if (state.status !== 'completed' && state.status !== 'needs_review') status = 'needs_review';
  }
  return [
    {
      type: 'CheckoutCardAttemptSucceeded',
      data: { ...base, processor: attempt.processor, brand: result.brand, last4: result.last4, amount: result.amountMinor, currency: result.currency, status, review_reason: review },
    },
  ];
}

/**
 * A charge this checkout completed on that the payment could not take (decision 0026 addendum,
 * 2026-11-29): `needs_review` with the payment's reason. Only from `completed` on that very
 * attempt; anything else (in review already, a repeat) changes nothing.
 */
function holdCardCharge(command: HoldCardCharge, state: CardCheckoutState): CheckoutEvent[] {
  const attempt = state.attempts.find((a) => a.id === command.attemptId);
  if (state.status !== 'completed' || attempt?.status !== 'succeeded') return [];
  return [{ type: 'CheckoutCardChargeHeld', data: { checkout_id: state.id, payment_id: state.paymentId, attempt_id: attempt.id, review_reason: command.reason } }];
}

function timeOutAttempt(command: TimeOutCardAttempt, state: CardCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  const attempt = state.attempts.find((a) => a.id === command.attemptId);
  if (!attempt || attempt.status !== 'pending') return []; // ended already
  if (ctx.now.getTime() < Date.parse(attempt.expiresAt)) return []; // an early timer changes nothing
  const awaited = state.status === 'awaiting_customer' && pendingCardAttempt(state)?.id === attempt.id;
  return [{ type: 'CheckoutCardAttemptTimedOut', data: { checkout_id: state.id, payment_id: state.paymentId, attempt_id: attempt.id, failed: awaited } }];
}

export function foldCheckout(events: Iterable<CheckoutEvent>, state: CheckoutState = initialCheckoutState): CheckoutState {
  return foldWith(checkoutDecider, events, state);
}

/** Whether the quote has ended at `now` (by status or by time). */
export function quoteEnded(state: CryptoCheckoutState, now: Date): boolean {
  return state.status === 'expired' || now.getTime() >= Date.parse(state.expiresAt);
}

function open(command: OpenCryptoCheckout, state: CheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (repeatedCreation('checkout', state.status === 'none' ? null : state.id, command.checkoutId)) return []; // a retry of the same opening
  if ((command.rail as string) !== 'crypto') throw new PaymentDomainError('wrong_rail', 'Only crypto checkouts are decided here.', 'rail');
  const { decimals } = carried(command.asset, command.network);
  const price = command.remainder ? command.remainder.priceMinor : command.priceMinor;
  const breakdown = money(() =>
    buildBreakdown({ currency: command.currency, priceMinor: price, rail: 'crypto', feePayer: command.remainder ? 'business' : command.feePayer, feeRateBps: command.feeRateBps }),
  );
  const expected = command.remainder
    ? parse(command.remainder.amount, decimals)
    : money(() => quoteCryptoAmount({ priceMinor: breakdown.total, rateMinorPerCoin: command.rateMinorPerCoin, decimals }));
  if (expected <= 0n) throw new PaymentDomainError('nothing_due', 'Nothing is left to collect.');
  return [
    {
      type: 'CheckoutOpened',
      data: {
        checkout_id: command.checkoutId,
        payment_id: command.paymentId,
        link_id: command.linkId,
        rail: 'crypto',
        remainder: command.remainder !== null,
        simulated: command.simulated,
        asset: command.asset,
        network: command.network,
        amount: fmt(expected, decimals),
        address: command.address,
        ...(command.wallet ? { wallet_id: command.wallet.walletId, address_index: command.wallet.index } : {}),
        rate: { amount: command.rateMinorPerCoin, currency: command.currency, ...(command.rateOrigin ? { source: command.rateOrigin.source, at: command.rateOrigin.at } : {}) },
        breakdown,
        expires_at: new Date(ctx.now.getTime() + command.quoteTtlMs).toISOString(),
        quote_ttl_ms: command.quoteTtlMs,
        confirmations_required: confirmationsRequired(command.network),
        ...command.details,
      },
    },
  ];
}

/**
 * §7: a checkout whose transfer was seen in the mempool and still holds the quote (0023 addendum)
 * has funds on the way: the customer can neither cancel nor replace it until the transfer is
 * mined or dropped.
 */
function fundsOnTheWay(state: OpenCheckoutState, ctx: DecideContext): boolean {
  return state.rail === 'crypto' && checkoutSightingHolds(state, ctx.now);
}

function cancel(state: OpenCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (state.status === 'canceled') return []; // cancel again: the checkout unchanged
  if (state.status !== 'open' && state.status !== 'awaiting_customer') {
    throw new PaymentDomainError('checkout_not_cancelable', `${article(state.status)} ${state.status} checkout cannot be canceled: funds may be on the way, or it ended.`);
  }
  if (fundsOnTheWay(state, ctx)) throw new PaymentDomainError('checkout_not_cancelable', 'The checkout cannot be canceled: a transfer to it was seen on the network and is waiting to be included in a block.');
  return [
    { type: 'CheckoutCanceled', data: { checkout_id: state.id, payment_id: state.paymentId, link_id: state.linkId, remainder: state.remainder, canceled_by: 'customer' } },
  ];
}

function supersede(command: SupersedeCheckout, state: OpenCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (state.remainder) throw new PaymentDomainError('checkout_not_supersedable', 'A checkout that collects a remainder cannot be replaced.');
  // §3: a card checkout that failed on a decline (or its attempt timed out) is replaced too
  const failedOnCard = state.rail === 'card' && state.status === 'failed' && state.failedByAttempt;
  if (state.status !== 'open' && state.status !== 'awaiting_customer' && !failedOnCard) {
    if (command.by === 'payment') return [];
    throw new PaymentDomainError('checkout_not_supersedable', `${article(state.status)} ${state.status} checkout cannot be replaced: funds may be on the way, or it ended.`);
  }
  if (state.superseded) return []; // repeating changes nothing while the checkout could still be replaced
  // the customer waits for a seen transfer; a new quote of the payment still sets it aside (it stays watched)
  if (command.by === 'customer' && fundsOnTheWay(state, ctx)) {
    throw new PaymentDomainError('checkout_not_supersedable', 'The checkout cannot be replaced: a transfer to it was seen on the network and is waiting to be included in a block.');
  }
  return [{ type: 'CheckoutSuperseded', data: { checkout_id: state.id } }];
}

function claim(command: ClaimCheckout, state: CryptoCheckoutState): CheckoutEvent[] {
  if (typeof command.txHash !== 'string' || !isValidTxHash(state.network, command.txHash)) {
    throw new PaymentDomainError('invalid_tx_hash', `The hash does not fit the ${state.network} network.`, 'tx_hash');
  }
  const txHash = normalizeTxHash(state.network, command.txHash);
  if (state.status === 'needs_review' && state.reviewReason === 'claimed') {
    if (state.claimTxHash === txHash) return []; // the same claim again
    throw new PaymentDomainError('already_claimed', 'A claim is already under review.');
  }
  if (command.paymentSucceeded) throw new PaymentDomainError('payment_paid', 'The payment has succeeded.');
  if (command.paymentClaimTxHash && command.paymentClaimTxHash !== txHash) throw new PaymentDomainError('already_claimed', 'A claim on this payment is already under review.');
  if (state.status !== 'expired' && state.status !== 'canceled') {
    throw new PaymentDomainError('checkout_not_claimable', 'Only expired or canceled checkouts take a claim.');
  }
  return [
    { type: 'CheckoutClaimed', data: { checkout_id: state.id, payment_id: state.paymentId, tx_hash: txHash, network: state.network, email: command.email ?? null } },
  ];
}

function markSent(command: MarkSent, state: CryptoCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (!state.simulated) throw new PaymentDomainError('invalid_request', 'Only a simulated business can mark a transfer sent.', 'simulate');
  const kinds: readonly string[] = ['exact', 'underpaid', 'overpaid', 'wrong_network', 'late'];
  if (!kinds.includes(command.simulate)) throw new PaymentDomainError('invalid_request', `simulate is one of ${kinds.join(', ')}.`, 'simulate');
  if (state.status === 'confirming' || state.status === 'completed' || state.status === 'needs_review') return []; // no second transfer
  if (state.status === 'canceled') throw new PaymentDomainError('checkout_canceled', 'The checkout was canceled.');
  if (state.status === 'failed') throw new PaymentDomainError('checkout_failed', 'The checkout failed; start a new one.');
  if (state.transfers.some((t) => t.txHash === command.txHash)) return [];
  const due = remaining(state.expected, state.received);
  if (command.simulate === 'late') return detect(state, ctx, command.txHash, state.network, due, true, true, command.fromAddress ?? null);
  if (quoteEnded(state, ctx.now)) throw new PaymentDomainError('checkout_expired', 'The quote expired; start a new checkout.');
  switch (command.simulate) {
    case 'exact':
      return detect(state, ctx, command.txHash, state.network, due, false, true, command.fromAddress ?? null);
    case 'underpaid': {
      // 90% rounded down is short of what is due and more than nothing from 2 units due up; with 1
      // smallest unit due nothing smaller can be sent (a transfer of 0 is no transfer: decision 0009 addendum)
      const short = simulatedUnderpaid(due);
      if (short <= 0n) throw new PaymentDomainError('invalid_request', `Nothing less than the ${fmt(due, state.decimals)} ${state.asset} still due can be sent: simulate exact or overpaid.`, 'simulate');
      return detect(state, ctx, command.txHash, state.network, short, false, true, command.fromAddress ?? null);
    }
    case 'overpaid':
      return detect(state, ctx, command.txHash, state.network, simulatedOverpaid(due), false, true, command.fromAddress ?? null);
    case 'wrong_network': {
      const other = otherEvmNetworksCarrying(state.asset, state.network)[0];
      if (other === undefined) throw new PaymentDomainError('invalid_request', `No other EVM network carries ${state.asset}.`, 'simulate');
      return detect(state, ctx, command.txHash, other, due, false, true, command.fromAddress ?? null);
    }
    default:
      return unhandled(command.simulate, 'simulate');
  }
}

/**
 * A transfer to the checkout's address. On the quoted network while the quote is live: the
 * checkout confirms it. On another network: needs_review (wrong_network). After the quote ended
 * (or `late`, which ends it first): needs_review (late).
 *
 * While a transfer is confirming, another real transfer (DetectTransfer) is recorded too (0009):
 * on the quoted network it adds to received_amount whatever the time (the quote is held while a
 * transfer confirms: the quote timer does not end a confirming checkout either), and the checkout
 * decides (completed / awaiting_customer) once every transfer on the quoted network has its
 * confirmations. On another network it puts the checkout in needs_review (wrong_network).
 * mark-sent never reaches here while confirming (spec: no second simulated transfer).
 *
 * A completed checkout, or one in review, takes a further real transfer too (0025 addenda,
 * 2026-11-28): the customer sent it for this payment, so it is recorded — on the quoted network it
 * adds to received_amount (and overpaid_amount), on another it is listed only — and its
 * confirmations are recorded as any other's. The status stays: a completed checkout decided
 * already, and one in review is not put in review again (no second CheckoutNeedsReview, nothing
 * late: who decides does not change). `confirm` completes a checkout in review for a claim alone
 * that then receives all it asked for (the payment's rule, see `claimAlone`). mark-sent never
 * reaches here on a completed checkout or one in review.
 */
function detect(
  state: CryptoCheckoutState,
  ctx: DecideContext,
  txHash: string,
  network: NetworkId,
  amount: bigint,
  late: boolean,
  simulated: boolean,
  fromAddress: string | null = null,
  minedAt: string | null = null,
): CheckoutEvent[] {
  if (state.transfers.some((t) => t.txHash === txHash)) return []; // seen already
  if (amount <= 0n) return []; // a transfer of nothing (a zero-value token transfer) brings no money: nothing to record
  const events: CheckoutEvent[] = [];
  // confirming holds the quote; so does this very transaction seen in the mempool while the quote
  // was live (0023 addendum, 2026-11-29): mined after the quote's end, it is on time
  const held = state.status === 'confirming' || (!late && network === state.network && (state.status === 'open' || state.status === 'awaiting_customer') && state.sightings.some((s) => s.txHash === txHash));
  // decided, or waiting for the business: a further transfer is neither late nor a new review
  const settled = state.status === 'completed' || state.status === 'needs_review';
  // in time when mined before the quote's end, however late it was read (0025 addendum, 2026-11-29,
  // lateness at mining: a live quote's end waits for its network's watcher to read through it);
  // a block stamped after the service saw it (a miner's clock ahead) is judged when seen
  const judgedAt = minedAt !== null && Date.parse(minedAt) < ctx.now.getTime() ? new Date(minedAt) : ctx.now;
  const ended = !held && !settled && (late || quoteEnded(state, judgedAt) || state.status === 'canceled' || state.status === 'failed');
  if (ended && (state.status === 'open' || state.status === 'awaiting_customer')) {
    // `late` ends a quote still live first (§3): its end becomes now, so expires_at is not ahead
    const endedEarly = ctx.now.getTime() < Date.parse(state.expiresAt);
    events.push({
      type: 'CheckoutExpired',
      data: { checkout_id: state.id, payment_id: state.paymentId, received_amount: fmt(state.received, state.decimals), ...(endedEarly ? { expires_at: ctx.now.toISOString() } : {}) },
    });
  }
  const received = network === state.network ? state.received + amount : state.received;
  const left = remaining(state.expected, received);
  const over = overpaid(state.expected, received);
  events.push({
    type: 'CheckoutTransferDetected',
    data: {
      checkout_id: state.id,
      payment_id: state.paymentId,
      tx_hash: txHash,
      network,
      amount: fmt(amount, state.decimals),
      received_amount: fmt(received, state.decimals),
      remaining_amount: left > 0n ? fmt(left, state.decimals) : null,
      overpaid_amount: over > 0n ? fmt(over, state.decimals) : null,
      simulated,
      ...(fromAddress ? { from_address: fromAddress } : {}),
      ...(minedAt !== null ? { mined_at: minedAt } : {}),
      detected_at: ctx.now.toISOString(),
      // final at its own network's depth, not the quote's (0025 addendum, 2026-11-29, own network)
      ...(network !== state.network ? { confirmations_required: confirmationsRequired(network) } : {}),
    },
  });
  if (!settled && (network !== state.network || ended)) {
    events.push({ type: 'CheckoutNeedsReview', data: { checkout_id: state.id, payment_id: state.paymentId, review_reason: network !== state.network ? 'wrong_network' : 'late', tx_hash: txHash } });
  }
  return events;
}

function confirm(command: RecordCheckoutConfirmations, state: CryptoCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  const transfer = state.transfers.find((t) => t.txHash === command.txHash);
  if (!transfer) return []; // not a transfer of this checkout
  // a completed checkout records the confirmations of a transfer that came after it completed (it decides nothing)
  if (state.status !== 'confirming' && state.status !== 'needs_review' && state.status !== 'completed') return [];
  // final at its own network's depth: a transfer on another network than the quote's counts against that network's (0025 addendum, 2026-11-29, own network)
  const { required } = transfer;
  const target = Math.min(command.current, required);
  const events: CheckoutEvent[] = [];
  for (let n = transfer.current + 1; n <= target; n++) {
    events.push({ type: 'CheckoutConfirmationRecorded', data: { checkout_id: state.id, tx_hash: command.txHash, current: n, required } });
  }
  if (events.length === 0 || target < required) return events;
  // Confirming decides; in review only a claim alone may be settled by the chain (the business decides the rest).
  if (state.status === 'needs_review' ? !claimAlone(state) : state.status !== 'confirming') return events;
  // Another transfer on the quoted network is still confirming: it decides.
  if (state.transfers.some((t) => t.txHash !== transfer.txHash && t.network === state.network && t.current < t.required)) return events;
  if (state.received >= state.expected) {
    const over = overpaid(state.expected, state.received);
    events.push({
      type: 'CheckoutCompleted',
      data: { checkout_id: state.id, payment_id: state.paymentId, received_amount: fmt(state.received, state.decimals), overpaid_amount: over > 0n ? fmt(over, state.decimals) : null },
    });
  } else if (state.status === 'confirming' && state.covered === true) {
    // the payment holds its price through its quotes together: the rest is not awaited (0025 addendum, 2026-11-29)
    events.push({ type: 'CheckoutCompleted', data: { checkout_id: state.id, payment_id: state.paymentId, received_amount: fmt(state.received, state.decimals), overpaid_amount: null } });
  } else if (state.status === 'confirming') {
    // §4/§8: the quote is held the quote life after the short transfer itself — its time as
    // recorded, the latest on the quoted network — not after its confirmation (decision 0009,
    // addendum 2026-11-30); confirmed after that end, the quote has ended: it ends at once, as
    // its timer would end it (a sighting still holding it keeps it, as there)
    const expiresAt = shortQuoteEnd(state.expiresAt, state.transfers.filter((t) => t.network === state.network).map((t) => t.at ?? null), state.quoteTtlMs, ctx.now);
    events.push({
      type: 'CheckoutAwaitingCustomer',
      data: {
        checkout_id: state.id,
        received_amount: fmt(state.received, state.decimals),
        remaining_amount: fmt(remaining(state.expected, state.received), state.decimals),
        expires_at: expiresAt,
      },
    });
    events.push(...expire({ ...state, status: 'awaiting_customer', expiresAt }, ctx));
  }
  return events;
}

/**
 * Whether a checkout in review is there for a claim alone — the customer's assertion, no money
 * seen on another network — so that all it asked for, arriving on its network and final,
 * completes it (0025 addendum, 2026-11-28, second): the checkout's side of the payment decider's
 * rule "a payment under review for a claim alone that then receives all it is due on a counted
 * transfer succeeds; a short one leaves the review to the business". Under review for money that
 * did arrive (wrong_network, late) the business decides, as on the payment.
 */
function claimAlone(state: CryptoCheckoutState): boolean {
  return state.reviewReason === 'claimed' && state.transfers.every((t) => t.network === state.network);
}

/**
 * A transfer whose block a reorganisation took away before it was final (a chain watcher's
 * report): the checkout no longer counts it. A final transfer is never withdrawn (its
 * confirmations reached `required`, where watchers stop) — every transfer a checkout completed
 * on is final, so on a completed checkout only one that came after it completed can be, and the
 * checkout stays completed. A confirming checkout left with nothing confirming takes transfers
 * again — `open`, or `awaiting_customer` when a confirmed short transfer remains — and ends at
 * once when its quote ended meanwhile (the quote was held only while the transfer confirmed).
 */
function withdraw(command: WithdrawTransfer, state: CryptoCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  const transfer = state.transfers.find((t) => t.txHash === command.txHash);
  if (!transfer || transfer.current >= transfer.required) return [];
  const received = transfer.network === state.network ? state.received - transfer.amount : state.received;
  const left = remaining(state.expected, received);
  const over = overpaid(state.expected, received);
  const after = state.transfers.filter((t) => t.txHash !== transfer.txHash);
  const status = state.status === 'confirming' ? statusWithout(after, state) : state.status;
  const events: CheckoutEvent[] = [
    {
      type: 'CheckoutTransferWithdrawn',
      data: {
        checkout_id: state.id,
        payment_id: state.paymentId,
        tx_hash: transfer.txHash,
        network: transfer.network,
        amount: fmt(transfer.amount, state.decimals),
        received_amount: fmt(received, state.decimals),
        // nothing left received: the shape of a checkout nothing was sent to (remaining null), not "the whole quote still due" (chain audit L1)
        remaining_amount: received > 0n && left > 0n ? fmt(left, state.decimals) : null,
        overpaid_amount: over > 0n ? fmt(over, state.decimals) : null,
        status,
      },
    },
  ];
  if (state.status === 'confirming' && status === 'open' && quoteEnded(state, ctx.now)) {
    events.push({ type: 'CheckoutExpired', data: { checkout_id: state.id, payment_id: state.paymentId, received_amount: fmt(received, state.decimals) } });
  }
  return events;
}

/** The status of a confirming checkout once `transfers` are all it has left. */
function statusWithout(transfers: readonly CheckoutTransfer[], state: CryptoCheckoutState): 'open' | 'awaiting_customer' | 'confirming' {
  if (transfers.some((t) => t.network === state.network && t.current < t.required)) return 'confirming';
  return transfers.some((t) => t.network === state.network) ? 'awaiting_customer' : 'open';
}

function expire(state: CryptoCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (state.status !== 'open' && state.status !== 'awaiting_customer') return []; // ended already, or a transfer is confirming
  if (!quoteEnded(state, ctx.now)) return []; // an early timer changes nothing
  if (checkoutSightingHolds(state, ctx.now)) return []; // a transaction seen in the mempool in time: mined, it decides; dropped, the quote ends then
  return [{ type: 'CheckoutExpired', data: { checkout_id: state.id, payment_id: state.paymentId, received_amount: fmt(state.received, state.decimals) } }];
}

/**
 * Whether a transaction seen in the mempool while the quote was live still holds the quote at
 * `now` (0023 addendum, 2026-11-29): one not mined, not dropped, seen less than SIGHTING_HOLD_MS ago.
 */
export function checkoutSightingHolds(state: CryptoCheckoutState, now: Date): boolean {
  return state.sightings.some((s) => now.getTime() < Date.parse(s.sightedAt) + SIGHTING_HOLD_MS);
}

/**
 * A transaction paying the checkout's address seen unconfirmed (0023 addendum, 2026-11-29):
 * recorded once, and only while the quote is live on a checkout waiting for money (open, or
 * awaiting the rest of a short payment) and on its own network — seen after the quote's end it
 * holds nothing (mined, it is late as before). Nothing is counted: the transfer counts when it is
 * mined (DetectTransfer), the amount is recorded for the reader of the stream.
 */
function sight(command: SightTransfer, state: CryptoCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (state.status !== 'open' && state.status !== 'awaiting_customer') return [];
  if (command.network !== state.network || quoteEnded(state, ctx.now)) return [];
  if (state.sightings.some((s) => s.txHash === command.txHash) || state.transfers.some((t) => t.txHash === command.txHash)) return []; // seen already
  const amount = parse(command.amount, state.decimals);
  if (amount <= 0n) return [];
  return [
    {
      type: 'CheckoutTransferSighted',
      data: { checkout_id: state.id, payment_id: state.paymentId, tx_hash: command.txHash, network: command.network, amount: fmt(amount, state.decimals), sighted_at: ctx.now.toISOString() },
    },
  ];
}

/**
 * A sighted transaction left the mempool without being mined (0023 addendum, 2026-11-29): it
 * holds the quote no longer, and a quote that ended meanwhile ends now — unless another sighting
 * still holds it.
 */
function dropSighting(command: DropSighting, state: CryptoCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (!state.sightings.some((s) => s.txHash === command.txHash)) return []; // mined, dropped already, or never seen
  const events: CheckoutEvent[] = [{ type: 'CheckoutSightingDropped', data: { checkout_id: state.id, payment_id: state.paymentId, tx_hash: command.txHash } }];
  const after: CryptoCheckoutState = { ...state, sightings: state.sightings.filter((s) => s.txHash !== command.txHash) };
  return [...events, ...expire(after, ctx)];
}

function fail(command: FailCheckout, state: OpenCheckoutState): CheckoutEvent[] {
  if (state.status === 'failed') return [];
  if (state.status !== 'open' && state.status !== 'awaiting_customer') return []; // ended otherwise: its own outcome stands
  return [{ type: 'CheckoutFailed', data: { checkout_id: state.id, payment_id: state.paymentId, failure_code: command.failureCode } }];
}

/**
 * A checkout in review whose payment succeeded (0025 addendum, 2026-11-29): the review is over —
 * `completed` when what it reviewed was counted, `failed` (`payment_succeeded`, as a card checkout
 * left open when the payment succeeded) when the payment was paid without it. Either rail. Any
 * other status, including after it resolved: nothing (retry-safe, and a checkout not in review is
 * not touched); nor a review that began after the payment succeeded (the checkout had failed with
 * `payment_succeeded` first).
 */
function resolveReview(command: ResolveReview, state: OpenCheckoutState): CheckoutEvent[] {
  if (state.status !== 'needs_review') return [];
  // failed because its payment had succeeded, then paid anyway: a review that began after the
  // success, for the business (paid_after_close); a success's reaction replayed late never ends it
  if (state.failureCode === 'payment_succeeded') return [];
  const status = command.counted ? 'completed' : 'failed';
  return [
    {
      type: 'CheckoutReviewResolved',
      data: { checkout_id: state.id, payment_id: state.paymentId, resolution: command.resolution, status, failure_code: status === 'failed' ? 'payment_succeeded' : null },
    },
  ];
}

/**
 * The checkout's transfer made its payment a second payment (0025 addendum, 2026-11-29,
 * multi-quote): a checkout still taking money (open, confirming, awaiting the rest) goes to
 * review with `duplicate_payment`, so the business and the hosted page can tell why the payment
 * is in review; its confirmations are still recorded, and accepting the payment ends the review
 * (ResolveReview). One in review already keeps its reason; one that completed or ended is left
 * as it is (§3 gives them no move to review). Retry-safe: in review, nothing more.
 */
function reviewDuplicate(command: ReviewDuplicatePayment, state: CryptoCheckoutState): CheckoutEvent[] {
  if (state.status !== 'open' && state.status !== 'confirming' && state.status !== 'awaiting_customer') return [];
  return [{ type: 'CheckoutNeedsReview', data: { checkout_id: state.id, payment_id: state.paymentId, review_reason: 'duplicate_payment', tx_hash: command.txHash } }];
}

/**
 * The payment holds its price through its quotes together (0025 addendum, 2026-11-29,
 * multi-quote): nothing more is due on a checkout that something reached. Awaiting the rest of a
 * short transfer, it completes with what it has; confirming, it completes once its transfers are
 * final (`confirm`); in review or ended, its status stays — in every case without a remaining
 * amount or a payment URI from here. Recorded once, on any checkout with a transfer whatever its
 * status (so a reaction replayed after the checkout moved on, say claimed, appends nothing).
 * A remainder checkout still open that nothing reached nor is on its way to (no sighting) asks
 * for what is no longer due (0025 addendum, 2026-11-29, covered late; recheck audit N4): it
 * fails with `payment_covered`, so a transfer to it afterwards is late money for the review. Any
 * other checkout nothing reached is left as it is.
 * Told by a payment that succeeded (`succeeded`, 0012 addendum, 2026-11-29, paid; api audit L3):
 * the same, on a checkout something reached that is still short of its quote on its network
 * (whatever its status: expired, in review, awaiting the rest …) — it asks for no more; one that
 * got all it asked for, or that nothing reached, records nothing.
 */
function paymentCovered(command: RecordPaymentCovered, state: CryptoCheckoutState): CheckoutEvent[] {
  if (state.covered === true) return [];
  if (command.succeeded === true && (state.transfers.length === 0 || state.received >= state.expected)) return [];
  const covered: CheckoutEvent = { type: 'CheckoutPaymentCovered', data: { checkout_id: state.id, payment_id: state.paymentId } };
  if (state.transfers.length === 0) {
    if (!state.remainder || state.status !== 'open' || state.sightings.length > 0) return [];
    return [covered, { type: 'CheckoutFailed', data: { checkout_id: state.id, payment_id: state.paymentId, failure_code: 'payment_covered' } }];
  }
  const events: CheckoutEvent[] = [covered];
  if (state.status === 'awaiting_customer') {
    const over = overpaid(state.expected, state.received);
    events.push({ type: 'CheckoutCompleted', data: { checkout_id: state.id, payment_id: state.paymentId, received_amount: fmt(state.received, state.decimals), overpaid_amount: over > 0n ? fmt(over, state.decimals) : null } });
  }
  return events;
}

/** The checkout aggregate as one Decider: what the command runner and the given/when/then tests use. */
export const checkoutDecider: Decider<CheckoutCommand, CheckoutEvent, CheckoutState, DecideContext> = { initialState: initialCheckoutState, decide: decideCheckout, evolve: evolveCheckout };
