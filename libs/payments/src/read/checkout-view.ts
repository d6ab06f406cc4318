import { AssetCode, ChainRegistry, NetworkId, defaultRegistry } from '@lib/chains';
import { Breakdown, Reporting, formatCryptoAmount, orderedBreakdown, orderedReporting, parseCryptoAmount } from '@lib/money';
import type { CheckoutStatus, OpenCheckoutState } from '../domain/checkout.decider';
import type { PaymentRail } from '../domain/shared';
import type { CardAttemptStatus, CardCheckoutOpenedData, CheckoutEvent, CheckoutOpenedData, CheckoutReviewReason } from '../domain/checkout.events';
import { CHECKOUT_STREAM } from '../domain/stream-categories';
import { foldWith, ignoreUnknown } from '@lib/domain';
import { LoggedEvent, eventTime } from './logged-event';
import { PaymentViewState, paymentReporting, txExplorerUrl } from './payment-view';
import { paymentUri } from './payment-uri';

/**
 * The checkout read model: `CheckoutViewState` (what the `checkouts` table keeps per checkout,
 * plain JSON), the pure reducer `evolveCheckoutView`, and `checkoutView`, the spec §2 Checkout
 * object built at read time (payment URIs and explorer links derived there). The secret fields
 * (`email`, `reporting`, `fee_rate_bps`) are added only when the caller asks for them; reporting
 * and the fee rate are the payment's. Decisions: docs/decisions/0012.
 */

export interface CheckoutViewTransfer {
  tx_hash: string;
  network: NetworkId;
  amount: string;
  detected_at: string;
  /**
   * Arrived on another network once the checkout had completed: listed, never counted, as the
   * checkout decider and the payment treat it (0025 addendum, 2026-11-28). Absent otherwise, and in
   * states stored before 2026-11-29 (such a transfer is counted there until a rebuild).
   */
  listed_only?: true;
  /**
   * On another network than the quote's: the confirmations that make it final there (its own
   * network's; 0025 addendum, 2026-11-29, own network). Absent on the quoted network: the quote's.
   */
  required?: number;
}

/** One card attempt as the checkout's row keeps it (decision 0026). */
export interface CardAttemptViewState {
  id: string;
  number: number;
  route: number;
  processor: string;
  status: CardAttemptStatus;
  secure_url: string;
  expires_at: string;
  created_at: string;
  decline_code: string | null;
  retryable: boolean;
}

/** What a card checkout's row keeps (null on crypto checkouts). */
export interface CardViewState {
  routes: string[];
  attempts: CardAttemptViewState[];
  brand: string | null;
  last4: string | null;
  /** The checkout failed on an attempt's result (another attempt may follow). */
  failed_by_attempt: boolean;
}

/**
 * One checkout as the `checkouts` table stores it (`state` column). A card checkout (decision
 * 0026) has no coin, network, amount, address or rate (null) and its `card` state.
 */
export interface CheckoutViewState extends Pick<CheckoutOpenedData, 'payment_id' | 'link_id' | 'remainder' | 'simulated' | 'breakdown'> {
  id: string;
  rail: PaymentRail;
  asset: CheckoutOpenedData['asset'] | null;
  network: CheckoutOpenedData['network'] | null;
  amount: string | null;
  address: string | null;
  rate: CheckoutOpenedData['rate'] | null;
  card: CardViewState | null;
  business_id: string | null;
  status: CheckoutStatus;
  /** End of the quote (moved by awaiting_customer); null on a card checkout. */
  expires_at: string | null;
  /** The shown (latest) transfer's count and the confirmations its own network requires. */
  confirmations: { current: number; required: number };
  /** The quoted network's required confirmations (absent in states stored before 2026-11-29: `confirmations.required` was always it there). */
  quoted_required?: number;
  transfers: CheckoutViewTransfer[];
  /**
   * Transactions seen in the mempool while the quote was live and not mined or dropped since, oldest
   * first (0023 addendum, 2026-11-29; absent in states stored before): they hold the quote.
   */
  sightings?: string[];
  /** Totals on the quoted network, as the checkout decided them. */
  received_amount: string;
  remaining_amount: string | null;
  overpaid_amount: string | null;
  /**
   * The payment holds its price through its quotes together (CheckoutPaymentCovered, 0025 addendum
   * of 2026-11-29; absent otherwise and in states stored before): nothing more is due here.
   */
  covered?: true;
  superseded: boolean;
  canceled_by: OpenCheckoutState['canceledBy'];
  replaces: string | null;
  replaced_by: string | null;
  failure_code: string | null;
  review_reason: CheckoutReviewReason | null;
  claim: { tx_hash: string; network: NetworkId; claimed_at: string } | null;
  email: string | null;
  country: string | null;
  success_url: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CheckoutCardAttemptView {
  id: string;
  number: number;
  route: number;
  processor: string;
  status: CardAttemptStatus;
  /** The processor's secure page; null once the attempt ended. */
  secure_url: string | null;
  expires_at: string;
  created_at: string;
}

/** The `card` object of a card checkout (decision 0026). */
export interface CheckoutCardView {
  /** 1-based position of the route the next or current attempt uses. */
  route: number;
  /** How many routes this checkout may use. */
  routes: number;
  processor: string;
  attempt: CheckoutCardAttemptView | null;
  brand: string | null;
  last4: string | null;
  decline_code: string | null;
  retryable: boolean;
}

export interface CheckoutCryptoView {
  asset: AssetCode;
  network: NetworkId;
  amount: string;
  address: string;
  payment_uri: string;
  /** The locked rate; `source` and `at` name the price it came from and its time (decision 0020), null on checkouts opened before they were recorded. */
  rate: { amount: number; currency: string; source: string | null; at: string | null };
  received_amount: string;
  remaining_amount: string | null;
  remaining_payment_uri: string | null;
  overpaid_amount: string | null;
  detected_network: NetworkId | null;
  tx_hash: string | null;
  explorer_url: string | null;
  /**
   * A transaction to the address seen in the network's mempool while the quote was live, not mined
   * yet (0023 addendum, 2026-11-29): the quote is held for it; nothing counted until it is mined
   * (then `tx_hash`, `confirming`). Null otherwise, and once the checkout no longer waits for money.
   */
  pending_tx_hash: string | null;
}

/** The spec §2 Checkout object; the last three members only with secret fields. */
export interface CheckoutView {
  kind: 'checkout';
  id: string;
  status: CheckoutStatus;
  rail: PaymentRail;
  link_id: string | null;
  payment_id: string;
  amount: number;
  currency: string;
  breakdown: Breakdown;
  crypto: CheckoutCryptoView | null;
  card: CheckoutCardView | null;
  confirmations: { current: number; required: number };
  remainder: boolean;
  canceled_by: OpenCheckoutState['canceledBy'];
  replaced_by: string | null;
  failure_code: string | null;
  review_reason: CheckoutReviewReason | null;
  success_url: string | null;
  expires_at: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
  email?: string | null;
  reporting?: Reporting | null;
  fee_rate_bps?: number | null;
}

export interface CheckoutViewOptions {
  registry?: ChainRegistry;
  /**
   * Present when the caller holds a secret key: adds `email`, `reporting` and `fee_rate_bps`
   * (the latter two from the checkout's payment; null if the payment row is missing).
   */
  secret?: { payment: PaymentViewState | null };
}

/**
 * Applies one logged event to a checkout's state. Pure. Besides its own stream's events, a
 * `CheckoutOpened` of another checkout that `replaces` this one sets `replaced_by`.
 */
export function evolveCheckoutView(state: CheckoutViewState | null, event: LoggedEvent): CheckoutViewState | null {
  const checkoutId = CHECKOUT_STREAM.parse(event.stream);
  if (checkoutId === null) return state;
  const at = eventTime(event);
  const e = { type: event.type, data: event.data } as CheckoutEvent;
  if (e.type === 'CardCheckoutOpened') {
    if (state === null) return checkoutId === e.data.checkout_id ? cardOpened(e.data, at) : null;
    if (e.data.checkout_id !== state.id && e.data.replaces === state.id) return { ...state, replaced_by: e.data.checkout_id, updated_at: at };
    return state;
  }
  if (e.type === 'CheckoutOpened') {
    if (state === null) return checkoutId === e.data.checkout_id ? opened(e.data, at) : null;
    if (e.data.checkout_id !== state.id && e.data.replaces === state.id) return { ...state, replaced_by: e.data.checkout_id, updated_at: at };
    return state;
  }
  if (state === null || checkoutId !== state.id) return state;
  const next = apply(state, e, at);
  return next === null ? state : { ...next, updated_at: at };
}

/** Folds logged events (in log order) into a checkout's state. */
export function foldCheckoutView(events: Iterable<LoggedEvent>, state: CheckoutViewState | null = null): CheckoutViewState | null {
  return foldWith({ initialState: null, evolve: evolveCheckoutView }, events, state);
}

/** What a checkout of either rail starts with: nothing received, nothing ended, its who and where. */
function openedCommon(d: CheckoutOpenedData | CardCheckoutOpenedData, at: string) {
  return {
    id: d.checkout_id,
    business_id: d.business_id ?? null,
    payment_id: d.payment_id,
    link_id: d.link_id,
    simulated: d.simulated,
    breakdown: { ...d.breakdown },
    status: 'open' as const,
    transfers: [],
    received_amount: '0',
    remaining_amount: null,
    overpaid_amount: null,
    superseded: false,
    canceled_by: null,
    replaces: d.replaces ?? null,
    replaced_by: null,
    failure_code: null,
    review_reason: null,
    claim: null,
    email: d.email ?? null,
    country: d.country ?? null,
    success_url: d.success_url ?? null,
    sent_at: null,
    created_at: at,
    updated_at: at,
  };
}

function cardOpened(d: CardCheckoutOpenedData, at: string): CheckoutViewState {
  return {
    ...openedCommon(d, at),
    rail: 'card',
    remainder: false,
    asset: null,
    network: null,
    amount: null,
    address: null,
    rate: null,
    card: { routes: [...d.routes], attempts: [], brand: null, last4: null, failed_by_attempt: false },
    expires_at: null,
    confirmations: { current: 0, required: 0 },
  };
}

function opened(d: CheckoutOpenedData, at: string): CheckoutViewState {
  return {
    ...openedCommon(d, at),
    card: null,
    rail: 'crypto',
    remainder: d.remainder,
    asset: d.asset,
    network: d.network,
    amount: d.amount,
    address: d.address,
    rate: { amount: d.rate.amount, currency: d.rate.currency, ...(d.rate.source !== undefined ? { source: d.rate.source, at: d.rate.at } : {}) },
    expires_at: d.expires_at,
    confirmations: { current: 0, required: d.confirmations_required },
    quoted_required: d.confirmations_required,
  };
}

function apply(state: CheckoutViewState, e: CheckoutEvent, at: string): CheckoutViewState | null {
  switch (e.type) {
    case 'CheckoutOpened':
      return state;
    case 'CheckoutCanceled':
      return { ...state, status: 'canceled', canceled_by: e.data.canceled_by };
    case 'CheckoutSuperseded':
      return { ...state, superseded: true };
    case 'CheckoutClaimed':
      return {
        ...state,
        status: 'needs_review',
        review_reason: 'claimed',
        claim: { tx_hash: e.data.tx_hash, network: e.data.network, claimed_at: at },
        email: state.email ?? e.data.email ?? null,
      };
    case 'CheckoutTransferDetected': {
      const d = e.data;
      if (state.transfers.some((t) => t.tx_hash === d.tx_hash)) return state;
      return {
        ...state,
        status: state.status === 'open' || state.status === 'awaiting_customer' ? 'confirming' : state.status,
        transfers: [
          ...state.transfers,
          {
            tx_hash: d.tx_hash,
            network: d.network,
            amount: d.amount,
            detected_at: at,
            ...(d.network !== state.network && state.status === 'completed' ? { listed_only: true as const } : {}),
            ...(d.confirmations_required !== undefined ? { required: d.confirmations_required } : {}),
          },
        ],
        ...withoutSighting(state, d.tx_hash), // mined: it counts from here
        received_amount: d.received_amount,
        remaining_amount: d.remaining_amount,
        overpaid_amount: d.overpaid_amount,
        // the transfer shown now, final at its own network's depth (0025 addendum, 2026-11-29, own network)
        confirmations: { current: 0, required: d.confirmations_required ?? quotedRequired(state) },
        quoted_required: quotedRequired(state),
        sent_at: state.sent_at ?? at,
      };
    }
    // seen in the mempool, nothing counted (0023 addendum, 2026-11-29): shown as pending_tx_hash, money once mined
    case 'CheckoutTransferSighted':
      return { ...state, sightings: [...(state.sightings ?? []).filter((h) => h !== e.data.tx_hash), e.data.tx_hash] };
    case 'CheckoutSightingDropped':
      return { ...state, ...withoutSighting(state, e.data.tx_hash) };
    case 'CheckoutTransferWithdrawn': {
      const d = e.data;
      const transfers = state.transfers.filter((t) => t.tx_hash !== d.tx_hash);
      // a completed checkout stays as it completed: its transfers from then are final (0025 addendum)
      const required = transfers.at(-1)?.required ?? quotedRequired(state);
      const current = d.status === 'completed' ? required : 0;
      // nothing left received: remaining null, as on a checkout nothing was sent to (events stored before the decider said so too; chain audit L1)
      const nothing = state.asset !== null && parseCryptoAmount(d.received_amount, defaultRegistry.decimals(state.asset)) === 0n;
      const remaining = nothing ? null : d.remaining_amount;
      return { ...state, status: d.status, transfers, received_amount: d.received_amount, remaining_amount: remaining, overpaid_amount: d.overpaid_amount, confirmations: { current, required } };
    }
    case 'CheckoutConfirmationRecorded':
      // the count of the transfer shown (the latest); another transfer's confirmations are its own
      if (state.transfers.length > 0 && state.transfers.at(-1)!.tx_hash !== e.data.tx_hash) return state;
      return { ...state, confirmations: { current: e.data.current, required: e.data.required } };
    case 'CheckoutCompleted':
      // a claim the chain then settled (all it asked for arrived, 0025 addendum): no longer under review
      return { ...state, status: 'completed', review_reason: null, received_amount: e.data.received_amount, remaining_amount: null, overpaid_amount: e.data.overpaid_amount };
    case 'CheckoutAwaitingCustomer':
      return { ...state, status: 'awaiting_customer', received_amount: e.data.received_amount, remaining_amount: e.data.remaining_amount, expires_at: e.data.expires_at };
    case 'CheckoutNeedsReview':
      return { ...state, status: 'needs_review', review_reason: e.data.review_reason };
    case 'CheckoutExpired':
      return { ...state, status: 'expired', expires_at: e.data.expires_at ?? state.expires_at };
    case 'CheckoutFailed':
      return { ...state, status: 'failed', failure_code: e.data.failure_code, card: state.card ? { ...state.card, failed_by_attempt: false } : null };
    case 'CheckoutPaymentCovered':
      return { ...state, covered: true, remaining_amount: null };
    case 'CheckoutReviewResolved':
      // the payment succeeded while the checkout was in review (0025 addendum, 2026-11-29): review_reason stays as history;
      // completed: nothing more is due on it; failed: `payment_succeeded`, as a card checkout the payment's success ended
      return e.data.status === 'completed'
        ? { ...state, status: 'completed', failure_code: null, remaining_amount: null, card: state.card ? { ...state.card, failed_by_attempt: false } : null }
        : { ...state, status: 'failed', failure_code: e.data.failure_code, card: state.card ? { ...state.card, failed_by_attempt: false } : null };
    case 'CardCheckoutOpened':
      return state;
    case 'CheckoutCardAttemptStarted': {
      if (!state.card) return state;
      const d = e.data;
      const attempt: CardAttemptViewState = { id: d.attempt_id, number: d.number, route: d.route, processor: d.processor, status: 'pending', secure_url: d.secure_url, expires_at: d.expires_at, created_at: at, decline_code: null, retryable: true };
      return { ...state, status: 'awaiting_customer', failure_code: null, card: { ...state.card, failed_by_attempt: false, attempts: [...state.card.attempts, attempt] } };
    }
    case 'CheckoutCardAttemptSucceeded': {
      if (!state.card) return state;
      const d = e.data;
      return {
        ...state,
        status: d.status as CheckoutStatus,
        review_reason: d.status === 'needs_review' && d.review_reason !== null ? d.review_reason : state.review_reason,
        sent_at: state.sent_at ?? at,
        card: { ...state.card, brand: d.brand, last4: d.last4, attempts: withAttempt(state.card, d.attempt_id, { status: 'succeeded' }) },
      };
    }
    case 'CheckoutCardChargeHeld':
      // the payment could not take the charge it completed on (decision 0026 addendum, 2026-11-29)
      return { ...state, status: 'needs_review', review_reason: e.data.review_reason };
    case 'CheckoutCardAttemptDeclined': {
      if (!state.card) return state;
      const d = e.data;
      const card = { ...state.card, attempts: withAttempt(state.card, d.attempt_id, { status: 'declined', decline_code: d.decline_code, retryable: d.retryable }) };
      return d.failed ? { ...state, status: 'failed', failure_code: d.decline_code, card: { ...card, failed_by_attempt: true, brand: d.brand ?? card.brand, last4: d.last4 ?? card.last4 } } : { ...state, card };
    }
    case 'CheckoutCardAttemptTimedOut': {
      if (!state.card) return state;
      const d = e.data;
      const card = { ...state.card, attempts: withAttempt(state.card, d.attempt_id, { status: 'timed_out' }) };
      return d.failed ? { ...state, status: 'failed', failure_code: 'processor_timeout', card: { ...card, failed_by_attempt: true } } : { ...state, card };
    }
    default:
      return ignoreUnknown(e, null); // a new type left out fails to compile; an unknown stored type is null (left as it is)
  }
}

/** The quoted network's required confirmations (a state stored before `quoted_required` only ever showed the quote's). */
function quotedRequired(state: CheckoutViewState): number {
  return state.quoted_required ?? state.confirmations.required;
}

/** The state's sightings without `txHash` (mined or dropped); nothing when it held none. */
function withoutSighting(state: CheckoutViewState, txHash: string): Pick<CheckoutViewState, 'sightings'> {
  return state.sightings?.includes(txHash) ? { sightings: state.sightings.filter((h) => h !== txHash) } : {};
}

function withAttempt(card: CardViewState, id: string, change: Partial<CardAttemptViewState>): CardAttemptViewState[] {
  return card.attempts.map((a) => (a.id === id ? { ...a, ...change } : a));
}

/** The card object (decision 0026): the route of the next or current attempt (once one went through, that one's), the latest attempt, and whether another attempt can start. */
export function cardView(state: CheckoutViewState, card: CardViewState): CheckoutCardView {
  const last = card.attempts[card.attempts.length - 1] ?? null;
  const pending = last !== null && last.status === 'pending' ? last : null;
  const current = pending ?? (last?.status === 'succeeded' ? last : null);
  const route = current ? current.route : Math.min(card.attempts.length + 1, card.routes.length);
  const waiting = state.status === 'open' || state.status === 'awaiting_customer' || (state.status === 'failed' && card.failed_by_attempt);
  const retryable = waiting && pending === null && !(last?.status === 'declined' && !last.retryable) && card.attempts.length < card.routes.length;
  return {
    route,
    routes: card.routes.length,
    processor: card.routes[route - 1] ?? '',
    attempt: last === null ? null : { id: last.id, number: last.number, route: last.route, processor: last.processor, status: last.status, secure_url: last.status === 'pending' ? last.secure_url : null, expires_at: last.expires_at, created_at: last.created_at },
    brand: card.brand,
    last4: card.last4,
    decline_code: last?.status === 'declined' ? last.decline_code : null,
    retryable,
  };
}

/**
 * What reached the checkout's address, on every network (0012 addendum, 2026-11-29). The state
 * keeps the totals on the quoted network, as the checkout decided them; a transfer of the same
 * coin to the same address on another EVM network (`wrong_network`, named by `detected_network`)
 * reached it too, as the payment's `method.amount`, its timeline and the receipt say: it is added
 * to `received_amount` and taken off `remaining_amount` (never making one where the checkout has
 * none). `overpaid_amount` counts it once the checkout completed (the business accepted it: the
 * payment counts it then), not while it is under review (the payment does not count it yet). One
 * that arrived after the checkout completed is listed only (`listed_only`). Without such a
 * transfer, the stored totals as they are.
 */
function addressTotals(state: CheckoutViewState, registry: ChainRegistry): { received: string; remaining: string | null; overpaid: string | null } {
  const elsewhere = state.transfers.filter((t) => t.network !== state.network && t.listed_only !== true);
  if (state.rail !== 'crypto' || state.asset === null || state.amount === null || elsewhere.length === 0) {
    return { received: state.received_amount, remaining: state.remaining_amount, overpaid: state.overpaid_amount };
  }
  const decimals = registry.decimals(state.asset);
  const received = elsewhere.reduce((total, t) => total + parseCryptoAmount(t.amount, decimals), parseCryptoAmount(state.received_amount, decimals));
  const expected = parseCryptoAmount(state.amount, decimals);
  const counted = state.status === 'completed';
  return {
    received: formatCryptoAmount(received, decimals),
    remaining: state.remaining_amount === null || received >= expected ? null : formatCryptoAmount(expected - received, decimals),
    overpaid: counted ? (received > expected ? formatCryptoAmount(received - expected, decimals) : null) : state.overpaid_amount,
  };
}

/** Statuses in which the checkout's quote can still take a transfer (remaining_payment_uri is shown). */
const RECEIVING: readonly CheckoutStatus[] = ['open', 'awaiting_customer', 'confirming'];

/** The spec §2 Checkout object of a state. */
export function checkoutView(state: CheckoutViewState, options: CheckoutViewOptions = {}): CheckoutView {
  const registry = options.registry ?? defaultRegistry;
  const card = state.card ? cardView(state, state.card) : null;
  const latest = state.transfers[state.transfers.length - 1] ?? null;
  // The transfer shown is the latest (the one the confirmations count); a claim's hash when nothing was detected.
  const hash = latest?.tx_hash ?? state.claim?.tx_hash ?? null;
  const hashNetwork = latest?.network ?? state.claim?.network ?? state.network!;
  const uri = (amount: string) => paymentUri({ asset: state.asset!, network: state.network!, address: state.address!, amount }, registry);
  const totals = addressTotals(state, registry);
  const view: CheckoutView = {
    kind: 'checkout',
    id: state.id,
    status: state.status,
    rail: state.rail,
    link_id: state.link_id,
    payment_id: state.payment_id,
    amount: state.breakdown.price,
    currency: state.breakdown.currency,
    breakdown: orderedBreakdown(state.breakdown),
    crypto: state.rail !== 'crypto' ? null : {
      asset: state.asset!,
      network: state.network!,
      amount: state.amount!,
      address: state.address!,
      payment_uri: uri(state.amount!),
      rate: { amount: state.rate!.amount, currency: state.rate!.currency, source: state.rate!.source ?? null, at: state.rate!.at ?? null },
      received_amount: totals.received,
      // nothing more is due on a checkout of a payment that holds its price through its quotes together (0025 addendum, 2026-11-29)
      remaining_amount: state.covered === true ? null : totals.remaining,
      remaining_payment_uri: totals.remaining !== null && state.covered !== true && RECEIVING.includes(state.status) ? uri(totals.remaining) : null,
      overpaid_amount: totals.overpaid,
      detected_network: latest?.network ?? null,
      tx_hash: hash,
      explorer_url: txExplorerUrl(registry, hashNetwork, hash),
      pending_tx_hash: state.status === 'open' || state.status === 'awaiting_customer' ? (state.sightings?.at(-1) ?? null) : null,
    },
    card,
    confirmations: { ...state.confirmations },
    remainder: state.remainder,
    canceled_by: state.canceled_by,
    replaced_by: state.replaced_by,
    failure_code: state.failure_code,
    review_reason: state.review_reason,
    success_url: state.success_url,
    // a card checkout's end is its attempt's (decision 0026): null while no attempt is in progress
    expires_at: state.rail === 'card' ? (card?.attempt?.status === 'pending' && (state.status === 'awaiting_customer') ? card.attempt.expires_at : null) : state.expires_at,
    sent_at: state.sent_at,
    created_at: state.created_at,
    updated_at: state.updated_at,
  };
  if (options.secret) {
    const payment = options.secret.payment;
    view.email = state.email;
    view.reporting = payment ? orderedReporting(paymentReporting(payment)) : null;
    view.fee_rate_bps = payment ? payment.fee_rate_bps : null;
  }
  return view;
}
