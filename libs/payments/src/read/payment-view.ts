import { AssetCode, ChainRegistry, NetworkId, defaultRegistry } from '@lib/chains';
import { FeePayer, Reporting, buildReporting, formatCryptoAmount, orderedReporting, parseCryptoAmount } from '@lib/money';
import type { CardCheckoutOpenedData, CheckoutOpenedData } from '../domain/checkout.events';
import type { PaymentStatus } from '../domain/payment.decider';
import type { PaymentCreatedData, PaymentDetails, PaymentEvent, PaymentReviewReason } from '../domain/payment.events';
import { TimelineActor, TimelineEntry, timeline } from '../domain/timeline';
import { CHECKOUT_STREAM, PAYMENT_STREAM } from '../domain/stream-categories';
import { OrNull, foldWith, ignoreUnknown, orNullFields, pickFields } from '@lib/domain';
import { LoggedEvent, eventTime } from './logged-event';

/**
 * The payment read model: `PaymentViewState` (what the `payments` table keeps per payment, plain
 * JSON), the pure reducer `evolvePaymentView` over logged events, and `paymentView`, the spec §2
 * Payment object built from a state (url, explorer links and reporting are derived there, never
 * kept in the state). The projector also keeps that object as JSON text, url aside
 * (`storedPaymentView`), which the payment routes answer from (`withPaymentUrl`). The webhook
 * outbox can fold the same reducer to get a payment as of any event: feed it the payment stream
 * and the `CheckoutOpened` events of its checkouts, in log order (the checkout's address and
 * country are only on those). Decisions: docs/decisions/0012, 0018.
 */

export interface PaymentViewTransfer {
  checkout_id: string;
  tx_hash: string;
  /** The network the transfer arrived on (another one than the quote's for wrong_network). */
  network: NetworkId;
  /**
   * The coin of the quote it paid, in which `amount` is written: a superseded quote in another
   * coin is still watched (decision 0011 addendum). Absent in states stored before 2026-11-28:
   * the method's coin then.
   */
  asset?: AssetCode;
  amount: string;
  review: PaymentReviewReason | null;
  /**
   * Detected once the payment had succeeded (a second payment, for the business to refund): never
   * its method's or settlement's. Absent otherwise, and once the payment counted it
   * (PaymentTransferCountedAfterSuccess: a transfer to a completed checkout, final; 0025 addendum).
   */
  after_success?: true;
  from_address: string | null;
  detected_at: string;
  confirmations: { current: number; required: number };
}

export interface PaymentViewCheckout {
  id: string;
  /** The wallet address the checkout reserved (null when its CheckoutOpened was never seen). */
  address: string | null;
  /** The wallet the address belongs to (absent: a checkout opened before wallets existed). */
  wallet_id?: string | null;
  country: string | null;
  remainder: boolean;
  /** The coin of a crypto checkout's quote (null for a card checkout; absent in states stored before 2026-11-28). */
  asset?: AssetCode | null;
}

/** A card method (decision 0026): the card checkout, what the card is charged, and the card once charged. */
export interface PaymentViewCardMethod {
  checkout_id: string;
  rail: 'card';
  quoted_amount: number;
  card: { processor: string; brand: string; last4: string; attempt_id: string } | null;
}

export interface PaymentViewMethod {
  checkout_id: string;
  rail: 'crypto';
  asset: AssetCode;
  network: NetworkId;
  expected_amount: string;
  rate: { amount: number; currency: string };
  quoted_amount: number;
  quote_ends_at: string;
}

/** What a payment's state copies from its PaymentCreated as recorded. */
const CREATED_FIELDS = ['amount', 'currency', 'fee_payer', 'fee_rate_bps', 'customer_fee', 'link_id', 'expires_at'] as const;

/**
 * The details a payment's state copies from its PaymentCreated, null where the event has none (one
 * recorded before the detail existed). `customer_email` is kept for the business's own tools; never
 * shown by the payment, checkout or receipt views.
 */
const CREATED_DETAILS = ['business_id', 'mode', 'code', 'customer_id', 'customer_email', 'reference', 'description', 'success_url', 'cancel_url'] as const;

/** One payment as the `payments` table stores it (`state` column). Plain JSON: no undefined, no BigInt. */
export interface PaymentViewState extends Pick<PaymentCreatedData, (typeof CREATED_FIELDS)[number]>, OrNull<Pick<PaymentDetails, (typeof CREATED_DETAILS)[number]>> {
  id: string;
  status: PaymentStatus;
  metadata: Record<string, string>;
  /** The current checkout: the last one selected as the method or opened for a remainder. */
  checkout_id: string | null;
  country: string | null;
  method: PaymentViewMethod | PaymentViewCardMethod | null;
  checkouts: PaymentViewCheckout[];
  /** Every transfer, in the order detected. */
  transfers: PaymentViewTransfer[];
  amount_received: number;
  /** From PaymentSucceeded: what counted (crypto), the overpayment, the business's reporting. */
  received_amount: string | null;
  overpaid_amount: string | null;
  reporting: Reporting | null;
  accepted: boolean;
  claim: { checkout_id: string; tx_hash: string; network: NetworkId; claimed_at: string } | null;
  failure_code: string | null;
  created_at: string;
  updated_at: string;
  canceled_at: string | null;
  confirmed_at: string | null;
  failed_at: string | null;
  /** The timeline (spec §2 `events`), oldest first, with the events' own times. */
  events: TimelineEntry[];
}

/** The payment's `method`: a card method has no coin, network or amounts (null) and names the card (decision 0026); `card` is null on a crypto method. */
export interface PaymentMethodView {
  rail: 'crypto' | 'card';
  asset: AssetCode | null;
  network: NetworkId | null;
  amount: string | null;
  expected_amount: string | null;
  overpaid_amount: string | null;
  from_address: string | null;
  tx_hash: string | null;
  explorer_url: string | null;
  card: { processor: string; brand: string; last4: string } | null;
}

export interface PaymentSettlementView {
  destination: 'wallet';
  asset: AssetCode;
  network: NetworkId;
  amount: string;
  wallet_id: string | null;
  address: string | null;
  tx_hash: string;
  explorer_url: string | null;
}

/** The spec §2 Payment object. */
export interface PaymentView {
  kind: 'payment';
  id: string;
  status: PaymentStatus;
  amount: number;
  currency: string;
  fee_payer: FeePayer;
  customer_fee: number;
  amount_received: number;
  reporting: Reporting;
  fee_rate_bps: number;
  method: PaymentMethodView | null;
  settlement: PaymentSettlementView | null;
  customer_id: string | null;
  link_id: string | null;
  url: string | null;
  reference: string | null;
  metadata: Record<string, string>;
  success_url: string | null;
  cancel_url: string | null;
  expires_at: string | null;
  canceled_at: string | null;
  confirmed_at: string | null;
  checkout_id: string | null;
  description: string | null;
  country: string | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: string;
  updated_at: string;
  events: TimelineEntry[];
}

export interface PaymentViewOptions {
  /** Where the hosted checkout page lives (`{checkout_url}`); a payment's url is `${base}/${code}`. */
  checkoutBaseUrl: string;
  /** Explorer links come from here (a deployment may override explorers); the defaults otherwise. */
  registry?: ChainRegistry;
}

/** failure_message for each failure_code a payment can carry (decision 0012). */
export const PAYMENT_FAILURE_MESSAGES: Readonly<Record<string, string>> = {
  payment_expired: 'The payment expired before it was paid.',
  checkout_canceled: 'The customer canceled the checkout.',
  checkout_expired: 'The checkout expired before anything was sent to it.',
};

export function paymentFailureMessage(code: string | null): string | null {
  if (code === null) return null;
  return PAYMENT_FAILURE_MESSAGES[code] ?? `The payment failed (${code}).`;
}

/**
 * Applies one logged event to a payment's state. Pure and deterministic (event data and its time
 * only). Returns the state unchanged for events that do not concern it; null until PaymentCreated.
 */
export function evolvePaymentView(state: PaymentViewState | null, event: LoggedEvent): PaymentViewState | null {
  const at = eventTime(event);
  if (CHECKOUT_STREAM.owns(event.stream)) {
    if (state === null || (event.type !== 'CheckoutOpened' && event.type !== 'CardCheckoutOpened')) return state;
    return checkoutOpened(state, event.data as CheckoutOpenedData | CardCheckoutOpenedData);
  }
  if (!PAYMENT_STREAM.owns(event.stream)) return state;
  const e = { type: event.type, data: event.data } as PaymentEvent;
  if (e.type === 'PaymentCreated') return state ?? created(e.data, at);
  if (state === null) return null;
  const next = apply(state, e, at);
  if (next === null) return state; // a type this version does not know
  const entries = timeline([{ ...e, recorded_at: at, actor: actorOf(event) }], state.currency);
  // bookkeeping that changes nothing shown (a set-aside quote ending, an accepted marker): updated_at stays
  if (next === state && entries.length === 0) return state;
  return { ...next, events: entries.length > 0 ? [...state.events, ...entries] : state.events, updated_at: at };
}

/** The actor an event's metadata names (the `actor` of GET /events), or null: the timeline's `accepted` entry shows it. */
function actorOf(event: LoggedEvent): TimelineActor | null {
  const actor = event.metadata?.actor as { kind?: unknown; id?: unknown; name?: unknown } | null | undefined;
  if (!actor || typeof actor.kind !== 'string') return null;
  return { kind: actor.kind, id: typeof actor.id === 'string' ? actor.id : null, name: typeof actor.name === 'string' ? actor.name : null };
}

/** Folds logged events (in log order) into a payment's state. */
export function foldPaymentView(events: Iterable<LoggedEvent>, state: PaymentViewState | null = null): PaymentViewState | null {
  return foldWith({ initialState: null, evolve: evolvePaymentView }, events, state);
}

function created(d: PaymentCreatedData, at: string): PaymentViewState {
  return {
    id: d.payment_id,
    status: 'pending',
    ...pickFields(d, CREATED_FIELDS),
    ...orNullFields(d, CREATED_DETAILS),
    metadata: { ...(d.metadata ?? {}) },
    checkout_id: null,
    country: null,
    method: null,
    checkouts: [],
    transfers: [],
    amount_received: 0,
    received_amount: null,
    overpaid_amount: null,
    reporting: null,
    accepted: false,
    claim: null,
    failure_code: null,
    created_at: at,
    updated_at: at,
    canceled_at: null,
    confirmed_at: null,
    failed_at: null,
    events: timeline([{ type: 'PaymentCreated', data: d, recorded_at: at }]),
  };
}

/** A checkout of this payment opened: its address (settlement) and country (the payment's country). */
function checkoutOpened(state: PaymentViewState, d: CheckoutOpenedData | CardCheckoutOpenedData): PaymentViewState {
  if (d.payment_id !== state.id) return state;
  const known = state.checkouts.find((c) => c.id === d.checkout_id);
  // known from the payment's own PaymentMethodSelected of a version that named no address: the checkout's event fills it in
  if (known && known.address === null && d.rail !== 'card') {
    return { ...state, checkouts: state.checkouts.map((c) => (c === known ? { ...c, address: d.address, wallet_id: d.wallet_id ?? null, country: c.country ?? d.country ?? null, remainder: d.remainder, asset: d.asset } : c)) };
  }
  if (known) return state;
  const checkout: PaymentViewCheckout =
    d.rail === 'card'
      ? { id: d.checkout_id, address: null, wallet_id: null, country: d.country ?? null, remainder: false, asset: null }
      : { id: d.checkout_id, address: d.address, wallet_id: d.wallet_id ?? null, country: d.country ?? null, remainder: d.remainder, asset: d.asset };
  // A remainder checkout is current before it opens (PaymentRemainderRequested comes first).
  const country = state.checkout_id === d.checkout_id && checkout.country !== null ? checkout.country : state.country;
  return { ...state, checkouts: [...state.checkouts, checkout], country };
}

/** The state after a payment event (timeline and updated_at aside), or null for an unknown type. */
function apply(state: PaymentViewState, e: PaymentEvent, at: string): PaymentViewState | null {
  switch (e.type) {
    case 'PaymentCreated':
      return state;
    case 'PaymentMetadataUpdated':
      return { ...state, metadata: { ...e.data.metadata } };
    case 'PaymentMethodSelected': {
      const d = e.data;
      let checkouts = state.checkouts;
      // the payment's own stream names the checkout's coin, address and country (so a view folded from
      // the payment stream alone, as the webhook outbox does, has them too; events stored before
      // addresses were recorded name the coin only)
      const known = checkouts.find((c) => c.id === d.checkout_id);
      if (!known) {
        checkouts = [...checkouts, { id: d.checkout_id, address: d.address ?? null, wallet_id: d.wallet_id ?? null, country: d.country ?? null, remainder: false, asset: d.asset }];
      } else if (known.asset == null) {
        checkouts = checkouts.map((c) => (c === known ? { ...c, asset: d.asset } : c));
      }
      const checkout = checkouts.find((c) => c.id === d.checkout_id);
      return {
        ...state,
        checkouts,
        method: {
          checkout_id: d.checkout_id,
          rail: d.rail,
          asset: d.asset,
          network: d.network,
          expected_amount: d.expected_amount,
          rate: { amount: d.rate.amount, currency: d.rate.currency },
          quoted_amount: d.quoted_amount,
          quote_ends_at: d.quote_ends_at,
        },
        checkout_id: d.checkout_id,
        country: checkout?.country ?? state.country,
      };
    }
    case 'PaymentTransferDetected': {
      const d = e.data;
      if (state.transfers.some((t) => sameTransfer(t, d))) return state;
      const transfer: PaymentViewTransfer = {
        checkout_id: d.checkout_id,
        tx_hash: d.tx_hash,
        network: d.network,
        asset: transferAsset(state, d.checkout_id),
        amount: d.amount,
        review: d.review,
        from_address: d.from_address ?? null,
        detected_at: at,
        confirmations: { current: 0, required: 0 },
        ...(state.status === 'succeeded' ? { after_success: true as const } : {}),
      };
      return { ...state, transfers: [...state.transfers, transfer] };
    }
    case 'PaymentTransferSighted': // nothing counted, nothing shown (0023 addendum, 2026-11-29)
    case 'PaymentSightingDropped':
      return state;
    case 'PaymentTransferWithdrawn':
      return { ...state, transfers: state.transfers.filter((t) => !sameTransfer(t, e.data)) };
    case 'PaymentConfirmationRecorded': {
      const d = e.data;
      return {
        ...state,
        transfers: state.transfers.map((t) =>
          sameTransfer(t, d) ? { ...t, confirmations: { current: Math.max(t.confirmations.current, d.current), required: d.required } } : t,
        ),
      };
    }
    case 'PaymentTransferCountedAfterSuccess': {
      const d = e.data;
      // the transfer pays the payment from here (method, settlement); amount_received and reporting stay as at success
      const transfers = state.transfers.map((t) => (sameTransfer(t, d) ? withoutAfterSuccess(t) : t));
      return { ...state, transfers, received_amount: d.received_amount, overpaid_amount: d.overpaid_amount };
    }
    case 'PaymentUnderpaid':
      return { ...state, status: 'underpaid', amount_received: e.data.amount_received };
    case 'PaymentRemainderRequested': {
      const checkout = state.checkouts.find((c) => c.id === e.data.checkout_id);
      return { ...state, checkout_id: e.data.checkout_id, country: checkout?.country ?? state.country };
    }
    case 'PaymentRemainderPaid':
      return state;
    case 'PaymentSucceeded': {
      const d = e.data;
      return {
        ...state,
        status: 'succeeded',
        amount_received: d.amount_received,
        received_amount: d.received_amount,
        overpaid_amount: d.overpaid_amount,
        reporting: { ...d.reporting },
        accepted: d.accepted,
        confirmed_at: at,
      };
    }
    case 'PaymentNeedsReview':
      return { ...state, status: 'needs_review' };
    case 'PaymentClaimed':
      return { ...state, status: 'needs_review', claim: { checkout_id: e.data.checkout_id, tx_hash: e.data.tx_hash, network: e.data.network, claimed_at: at } };
    case 'PaymentAccepted':
      return state;
    case 'PaymentCheckoutEnded':
      return state;
    case 'PaymentCardMethodSelected': {
      const d = e.data;
      const checkouts = state.checkouts.some((c) => c.id === d.checkout_id) ? state.checkouts : [...state.checkouts, { id: d.checkout_id, address: null, wallet_id: null, country: d.country, remainder: false, asset: null }];
      return { ...state, checkouts, method: { checkout_id: d.checkout_id, rail: 'card', quoted_amount: d.quoted_amount, card: null }, checkout_id: d.checkout_id, country: d.country ?? state.country };
    }
    case 'PaymentCardCharged': {
      const d = e.data;
      // the card that paid (or, under review, the first one charged) is the method's card. Under
      // review it is the method only where accepting the payment counts it (the payment decider's
      // accept): not once the payment succeeded otherwise, nor next to a transfer or a claim — a
      // card charged after a crypto payment must not take the place of the coin that paid, its
      // settlement and receipt (card audit, 2026-11-28)
      if (d.review !== null && (state.status === 'succeeded' || state.transfers.length > 0 || state.claim !== null || (state.method?.rail === 'card' && state.method.card !== null))) return state;
      const card = { processor: d.processor, brand: d.brand, last4: d.last4, attempt_id: d.attempt_id };
      return { ...state, method: { checkout_id: d.checkout_id, rail: 'card', quoted_amount: d.amount, card }, checkout_id: d.review === null ? d.checkout_id : state.checkout_id };
    }
    case 'PaymentExpired':
      return { ...state, status: 'failed', failure_code: e.data.failure_code, failed_at: at };
    case 'PaymentFailed':
      return { ...state, status: 'failed', failure_code: e.data.failure_code, failed_at: at };
    case 'PaymentCanceled':
      return { ...state, status: 'canceled', canceled_at: at };
    default:
      return ignoreUnknown(e, null); // a new type left out fails to compile; an unknown stored type is null (left as it is)
  }
}

/**
 * A transfer is its checkout's output of a transaction: one transaction may pay two checkouts of
 * the payment, each listed with its own amount (0025 addendum, 2026-11-28, third). Events have
 * always named the checkout, so states folded before match the same way.
 */
function sameTransfer(transfer: PaymentViewTransfer, event: { checkout_id: string; tx_hash: string }): boolean {
  return transfer.checkout_id === event.checkout_id && transfer.tx_hash === event.tx_hash;
}

function withoutAfterSuccess(transfer: PaymentViewTransfer): PaymentViewTransfer {
  const { after_success: _counted, ...rest } = transfer;
  return rest;
}

/**
 * The coin a transfer to this checkout is written in: its quote's (a superseded quote in another
 * coin stays watched), else the method's (a remainder checkout is quoted in the method's coin).
 */
function transferAsset(state: PaymentViewState, checkoutId: string): AssetCode | undefined {
  const quoted = state.checkouts.find((c) => c.id === checkoutId)?.asset;
  if (quoted != null) return quoted;
  return state.method?.rail === 'crypto' ? state.method.asset : undefined;
}

// ---- derived amounts (shared with the receipt) ------------------------------------------------

function decimalsOf(state: PaymentViewState, registry: ChainRegistry): number | null {
  return state.method?.rail === 'crypto' ? registry.decimals(state.method.asset) : null;
}

/**
 * The transfers that paid this payment, in the order detected: in the coin it is quoted in (a
 * transfer to a superseded quote in another coin is for the business to review, never summed into
 * this coin's units) and detected before it succeeded (money that arrives after, on a quote still
 * watched, is a second payment to refund: it stays in the timeline and the receipt's transfers,
 * never in the method or the settlement).
 */
function payingTransfers(state: PaymentViewState): PaymentViewTransfer[] {
  const method = state.method;
  if (method?.rail !== 'crypto') return [];
  return state.transfers.filter((t) => transferCoin(state, t) === method.asset && t.after_success !== true);
}

/** The coin a transfer's amount is written in: its own (`asset`), else, in a state stored before transfers named it, the method's. */
export function transferCoin(state: PaymentViewState, transfer: PaymentViewTransfer): AssetCode | null {
  return transfer.asset ?? (state.method?.rail === 'crypto' ? state.method.asset : null);
}

function sum(amounts: readonly string[], decimals: number): bigint {
  return amounts.reduce((total, a) => total + parseCryptoAmount(a, decimals), 0n);
}

/**
 * What the customer sent, as a decimal string: once succeeded, what the payment counted
 * (PaymentSucceeded `received_amount`; an accepted claim counts the quote); before, the sum of
 * every transfer detected (all networks); "0" before anything arrives.
 */
export function sentAmount(state: PaymentViewState, registry: ChainRegistry = defaultRegistry): string {
  if (state.received_amount !== null) return state.received_amount;
  const decimals = decimalsOf(state, registry);
  if (decimals === null) return '0';
  return formatCryptoAmount(sum(payingTransfers(state).map((t) => t.amount), decimals), decimals);
}

/**
 * The overpayment: PaymentSucceeded's once succeeded; before, what the counted transfers (quoted
 * network, not under review) hold beyond the quote; null when nothing is over.
 */
export function overpaidAmount(state: PaymentViewState, registry: ChainRegistry = defaultRegistry): string | null {
  if (state.status === 'succeeded') return state.overpaid_amount;
  const decimals = decimalsOf(state, registry);
  if (decimals === null || state.method?.rail !== 'crypto') return null;
  const counted = sum(payingTransfers(state).filter((t) => t.review === null).map((t) => t.amount), decimals);
  const expected = parseCryptoAmount(state.method.expected_amount, decimals);
  return counted > expected ? formatCryptoAmount(counted - expected, decimals) : null;
}

/**
 * `reporting`: PaymentSucceeded's once succeeded; before, what the business would get for what
 * has been counted so far (amount_received), with no network fee yet (decision 0012).
 */
export function paymentReporting(state: PaymentViewState): Reporting {
  if (state.reporting !== null) return { ...state.reporting };
  return buildReporting({
    currency: state.currency,
    amountReceivedMinor: state.amount_received,
    feeRateBps: state.fee_rate_bps,
    transactionFeeMinor: 0,
    customerFeeMinor: state.customer_fee,
    feePayer: state.fee_payer,
  });
}

/** Explorer link of a transaction, or null when the hash does not fit the network (a simulated id). */
export function txExplorerUrl(registry: ChainRegistry, network: NetworkId, hash: string | null): string | null {
  if (hash === null) return null;
  try {
    return registry.explorerTxUrl(network, hash);
  } catch {
    return null;
  }
}

/** `${checkoutBaseUrl}/${code}`; null for a payment that came from a link (its page is the link's) or has no code. */
export function paymentUrl(state: Pick<PaymentViewState, 'code' | 'link_id'>, checkoutBaseUrl: string): string | null {
  if (state.code === null || state.link_id !== null) return null;
  return `${checkoutBaseUrl.replace(/\/+$/, '')}/${encodeURIComponent(state.code)}`;
}

function methodView(state: PaymentViewState, registry: ChainRegistry): PaymentMethodView | null {
  const method = state.method;
  if (method === null) return null;
  if (method.rail === 'card') {
    const card = method.card === null ? null : { processor: method.card.processor, brand: method.card.brand, last4: method.card.last4 };
    return { rail: 'card', asset: null, network: null, amount: null, expected_amount: null, overpaid_amount: null, from_address: null, tx_hash: null, explorer_url: null, card };
  }
  const first = payingTransfers(state)[0] ?? null;
  const hash = first?.tx_hash ?? state.claim?.tx_hash ?? null;
  const hashNetwork = first?.network ?? state.claim?.network ?? method.network;
  return {
    rail: method.rail,
    asset: method.asset,
    network: method.network,
    amount: sentAmount(state, registry),
    expected_amount: method.expected_amount,
    overpaid_amount: overpaidAmount(state, registry),
    from_address: first?.from_address ?? null,
    tx_hash: hash,
    explorer_url: txExplorerUrl(registry, hashNetwork, hash),
    card: null,
  };
}

/**
 * Crypto goes straight to the business's wallet, so the settlement is the customer's first
 * transfer itself: null until a transfer is detected; then the network it landed on, the total
 * that landed there, the checkout's wallet and address, and that transfer's hash. `wallet_id` is
 * null only for a checkout opened before wallets existed (its events name none).
 */
function settlementView(state: PaymentViewState, registry: ChainRegistry): PaymentSettlementView | null {
  const inCoin = payingTransfers(state);
  const first = inCoin[0];
  if (first === undefined || state.method?.rail !== 'crypto') return null;
  const decimals = registry.decimals(state.method.asset);
  const landed = sum(inCoin.filter((t) => t.network === first.network).map((t) => t.amount), decimals);
  return {
    destination: 'wallet',
    asset: state.method.asset,
    network: first.network,
    amount: formatCryptoAmount(landed, decimals),
    wallet_id: state.checkouts.find((c) => c.id === first.checkout_id)?.wallet_id ?? null,
    address: state.checkouts.find((c) => c.id === first.checkout_id)?.address ?? null,
    tx_hash: first.tx_hash,
    explorer_url: txExplorerUrl(registry, first.network, first.tx_hash),
  };
}

/** The spec §2 Payment object of a state. */
export function paymentView(state: PaymentViewState, options: PaymentViewOptions): PaymentView {
  const registry = options.registry ?? defaultRegistry;
  const failureCode = failureCodeOf(state);
  return {
    kind: 'payment',
    id: state.id,
    status: state.status,
    amount: state.amount,
    currency: state.currency,
    fee_payer: state.fee_payer,
    customer_fee: state.customer_fee,
    amount_received: state.amount_received,
    reporting: orderedReporting(paymentReporting(state)),
    fee_rate_bps: state.fee_rate_bps,
    method: methodView(state, registry),
    settlement: settlementView(state, registry),
    customer_id: state.customer_id,
    link_id: state.link_id,
    url: paymentUrl(state, options.checkoutBaseUrl),
    reference: state.reference,
    metadata: { ...state.metadata },
    success_url: state.success_url,
    cancel_url: state.cancel_url,
    expires_at: state.expires_at,
    canceled_at: state.canceled_at,
    confirmed_at: state.confirmed_at,
    checkout_id: state.checkout_id,
    description: state.description,
    country: state.country,
    failure_code: failureCode,
    failure_message: paymentFailureMessage(failureCode),
    created_at: state.created_at,
    updated_at: state.updated_at,
    // each entry's keys as the spec names them, however the state was stored (jsonb reorders keys)
    events: state.events.map((entry) => ({ type: entry.type, created_at: entry.created_at, data: entry.data === null ? null : { ...entry.data } })),
  };
}

// ---- the stored view (decision 0018) ---------------------------------------------------------

/**
 * Version of storedPaymentView's output, kept beside it (`payments.view_version`). The read
 * model uses a stored view only when its version is this one and renders the others from their
 * state, so a table projected by older code answers right until `projections rebuild payments`
 * refreshes it. Bump it whenever the Payment object's text changes (paymentView or the helpers
 * it calls, the default registry's decimals or explorers, storedPaymentView itself).
 */
export const PAYMENT_VIEW_VERSION = 5; // 3: method.card and card methods (decision 0026); 4: reporting and timeline entries in the spec's key order; 5: failure_code only while failed

/**
 * Why the payment failed, while it is `failed`: a failed payment that a claim or a late transfer
 * took back to review, and that the business then accepted, no longer carries its old failure
 * (decision 0012 addendum, 2026-11-29). The state keeps it (the timeline's `failed` entry too).
 */
export function failureCodeOf(state: Pick<PaymentViewState, 'status' | 'failure_code'>): string | null {
  return state.status === 'failed' ? state.failure_code : null;
}

/**
 * The Payment object as JSON text, `url` null (the one field that depends on configuration,
 * CHECKOUT_BASE_URL; withPaymentUrl puts it in), with the default registry unless another is
 * given: what the projector keeps in `payments.view`, so the payment routes answer without
 * parsing or serialising. Event data only, so deterministic. The free-form parts copied from the
 * state (metadata, each timeline entry's data) are put in jsonb's key order; `reporting` and the
 * timeline entries have the spec's key order from paymentView itself: the text is then
 * the same whether the projector evolved the state in memory (insertion order) or loaded it from
 * the `state` column (jsonb order), and the same as JSON.stringify(paymentView(…)) of a state read
 * from that column, which is what the API answered before views were stored.
 */
export function storedPaymentView(state: PaymentViewState, registry: ChainRegistry = defaultRegistry): string {
  const view = paymentView(state, { checkoutBaseUrl: '', registry });
  return JSON.stringify({
    ...view, // the keys stay where paymentView puts them; the ones below only get new values
    url: null,
    metadata: jsonbOrdered(view.metadata),
    // only each entry's `data` (free-form per type) in jsonb order: its keys are as the spec names them
    events: view.events.map((entry) => ({ ...entry, data: jsonbOrdered(entry.data) })),
  });
}

const NO_URL = '"url":null';

/**
 * A stored view with its url: the text of the Payment object. The first `"url":` of the text is
 * the top-level key: inside a JSON string every quote is escaped, so the sequence can only be a
 * key, and no object before it (reporting, method, settlement) has a key named url.
 */
export function withPaymentUrl(view: string, url: string | null): string {
  if (url === null) return view;
  const at = view.indexOf(NO_URL);
  return `${view.slice(0, at)}"url":${JSON.stringify(url)}${view.slice(at + NO_URL.length)}`;
}

/**
 * The Payment object exactly as the payment routes answer it, key order included (the stored
 * view's text with its url): what an event's `data` carries, so a webhook payload and
 * GET /payments/{id} of the same moment are the same bytes (§6: "the object as its endpoint
 * returns it").
 */
export function paymentObjectAsAnswered(state: PaymentViewState, options: PaymentViewOptions): PaymentView {
  return JSON.parse(withPaymentUrl(storedPaymentView(state, options.registry), paymentUrl(state, options.checkoutBaseUrl))) as PaymentView;
}

/**
 * A deep copy of plain JSON whose objects have their keys in PostgreSQL's jsonb order (shorter
 * keys first, then by their UTF-8 bytes).
 */
function jsonbOrdered<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => jsonbOrdered(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(jsonbKeyOrder)) out[key] = jsonbOrdered((value as Record<string, unknown>)[key]);
  return out as T;
}

function jsonbKeyOrder(a: string, b: string): number {
  return Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b));
}
