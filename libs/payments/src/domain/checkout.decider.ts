import { AssetCode, NetworkId, confirmationsRequired, isValidTxHash, normalizeTxHash, otherEvmNetworksCarrying } from '@lib/chains';
import { FeePayer, buildBreakdown, overpaid, quoteCryptoAmount, remaining, simulatedOverpaid, simulatedUnderpaid } from '@lib/money';
import { CheckoutEvent, CheckoutReviewReason } from './checkout.events';
import { CommandHandlers, Decider, decideBy, foldWith, ignoreUnknown, unhandled } from '@lib/domain';
import { PaymentDomainError } from './errors';
import { DecideContext, PaymentRail, REMAINDER_WAIT_MS, carried, fmt, laterOf, money, parse } from './shared';

/**
 * The checkout aggregate's decider (one attempt to pay a payment): pure functions over the
 * events of one `checkout-<chk_id>` stream. Time comes in through the context, ids and rates
 * through the commands. Only the crypto rail is decided; card commands are refused with
 * wrong_rail where the spec says so, and the state keeps `rail` so card can be added.
 */

export type CheckoutStatus = 'open' | 'awaiting_customer' | 'confirming' | 'completed' | 'needs_review' | 'expired' | 'canceled' | 'failed';

export interface CheckoutTransfer {
  txHash: string;
  network: NetworkId;
  amount: bigint;
  /** Confirmations recorded for this transfer. */
  current: number;
}

export interface OpenCheckoutState {
  status: CheckoutStatus;
  id: string;
  paymentId: string;
  linkId: string | null;
  rail: PaymentRail;
  remainder: boolean;
  simulated: boolean;
  asset: AssetCode;
  network: NetworkId;
  decimals: number;
  /** Units due on this checkout (the quote). */
  expected: bigint;
  /** Units received on the quoted network. */
  received: bigint;
  transfers: readonly CheckoutTransfer[];
  /** The latest transfer (the one shown as confirming). Every transfer's own count is in `transfers`. */
  confirmingTx: string | null;
  /** The latest recorded count (shown on the checkout) and the network's required count. */
  confirmations: { current: number; required: number };
  expiresAt: string;
  /** The quote's life: how long it is held again after a short transfer (§4, 15 minutes by default). */
  quoteTtlMs: number;
  superseded: boolean;
  canceledBy: 'customer' | null;
  reviewReason: CheckoutReviewReason | null;
  claimTxHash: string | null;
  failureCode: string | null;
  /** The business (null in pure tests that leave details out). */
  businessId: string | null;
  email: string | null;
  /** What the automatic simulated arrival sends (POST /checkouts `simulate`), default exact. */
  simulate: Exclude<SimulatedTransfer, 'late'> | null;
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

export interface CancelCheckout {
  type: 'CancelCheckout';
}
export interface SupersedeCheckout {
  type: 'SupersedeCheckout';
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

export type CheckoutCommand =
  | OpenCryptoCheckout
  | CancelCheckout
  | SupersedeCheckout
  | ClaimCheckout
  | MarkSent
  | DetectTransfer
  | WithdrawTransfer
  | RecordCheckoutConfirmations
  | ExpireCheckout
  | FailCheckout;

/** What each command decides on a checkout that exists (OpenCheckout is the one that starts it). */
const CHECKOUT_COMMANDS: CommandHandlers<Exclude<CheckoutCommand, OpenCryptoCheckout>, OpenCheckoutState, DecideContext, CheckoutEvent> = {
  CancelCheckout: (_command, state) => cancel(state),
  SupersedeCheckout: (_command, state) => supersede(state),
  ClaimCheckout: claim,
  MarkSent: markSent,
  DetectTransfer: (command, state, ctx) => detect(state, ctx, command.txHash, command.network, parse(command.amount, state.decimals), false, false, command.fromAddress ?? null),
  RecordConfirmations: confirm,
  WithdrawTransfer: withdraw,
  ExpireCheckout: (_command, state, ctx) => expire(state, ctx),
  FailCheckout: fail,
};

export function decideCheckout(command: CheckoutCommand, state: CheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (command.type === 'OpenCheckout') return open(command, state, ctx);
  if (state.status === 'none') throw new PaymentDomainError('not_found', 'No such checkout.');
  return decideBy(CHECKOUT_COMMANDS, command, state, ctx);
}

export function evolveCheckout(state: CheckoutState, event: CheckoutEvent): CheckoutState {
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
      rail: d.rail,
      remainder: d.remainder,
      simulated: d.simulated,
      asset: d.asset,
      network: d.network,
      decimals,
      expected: parse(d.amount, decimals),
      received: 0n,
      transfers: [],
      confirmingTx: null,
      confirmations: { current: 0, required: d.confirmations_required },
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
  switch (event.type) {
    case 'CheckoutCanceled':
      return { ...state, status: 'canceled', canceledBy: event.data.canceled_by };
    case 'CheckoutSuperseded':
      return { ...state, superseded: true };
    case 'CheckoutClaimed':
      return { ...state, status: 'needs_review', reviewReason: 'claimed', claimTxHash: event.data.tx_hash };
    case 'CheckoutTransferDetected': {
      const d = event.data;
      const amount = parse(d.amount, state.decimals);
      const onQuote = d.network === state.network;
      return {
        ...state,
        status: state.status === 'open' || state.status === 'awaiting_customer' ? 'confirming' : state.status,
        received: onQuote ? state.received + amount : state.received,
        transfers: [...state.transfers, { txHash: d.tx_hash, network: d.network, amount, current: 0 }],
        confirmingTx: d.tx_hash,
        confirmations: { ...state.confirmations, current: 0 },
      };
    }
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
        confirmations: { ...state.confirmations, current: latest?.current ?? 0 },
      };
    }
    case 'CheckoutConfirmationRecorded': {
      const d = event.data;
      return {
        ...state,
        transfers: state.transfers.map((t) => (t.txHash === d.tx_hash ? { ...t, current: Math.max(t.current, d.current) } : t)),
        confirmations: { current: d.current, required: d.required },
      };
    }
    case 'CheckoutCompleted':
      return { ...state, status: 'completed' };
    case 'CheckoutAwaitingCustomer':
      return { ...state, status: 'awaiting_customer', expiresAt: event.data.expires_at };
    case 'CheckoutNeedsReview':
      return { ...state, status: 'needs_review', reviewReason: event.data.review_reason };
    case 'CheckoutExpired':
      return { ...state, status: 'expired', expiresAt: event.data.expires_at ?? state.expiresAt };
    case 'CheckoutFailed':
      return { ...state, status: 'failed', failureCode: event.data.failure_code };
    default:
      return ignoreUnknown(event, state);
  }
}

export function foldCheckout(events: Iterable<CheckoutEvent>, state: CheckoutState = initialCheckoutState): CheckoutState {
  return foldWith(checkoutDecider, events, state);
}

/** Whether the quote has ended at `now` (by status or by time). */
export function quoteEnded(state: OpenCheckoutState, now: Date): boolean {
  return state.status === 'expired' || now.getTime() >= Date.parse(state.expiresAt);
}

function open(command: OpenCryptoCheckout, state: CheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (state.status !== 'none') {
    if (state.id === command.checkoutId) return []; // a retry of the same opening
    throw new Error(`checkout ${command.checkoutId} decided on the stream of ${state.id}`);
  }
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

function cancel(state: OpenCheckoutState): CheckoutEvent[] {
  if (state.status === 'canceled') return []; // cancel again: the checkout unchanged
  if (state.status !== 'open' && state.status !== 'awaiting_customer') {
    throw new PaymentDomainError('checkout_not_cancelable', `A ${state.status} checkout cannot be canceled: funds may be on the way, or it ended.`);
  }
  return [
    { type: 'CheckoutCanceled', data: { checkout_id: state.id, payment_id: state.paymentId, link_id: state.linkId, remainder: state.remainder, canceled_by: 'customer' } },
  ];
}

function supersede(state: OpenCheckoutState): CheckoutEvent[] {
  if (state.superseded) return []; // repeating changes nothing, whatever happened to the checkout since
  if (state.remainder) throw new PaymentDomainError('checkout_not_supersedable', 'A checkout that collects a remainder cannot be replaced.');
  if (state.status !== 'open' && state.status !== 'awaiting_customer') {
    throw new PaymentDomainError('checkout_not_supersedable', `A ${state.status} checkout cannot be replaced: funds may be on the way, or it ended.`);
  }
  return [{ type: 'CheckoutSuperseded', data: { checkout_id: state.id } }];
}

function claim(command: ClaimCheckout, state: OpenCheckoutState): CheckoutEvent[] {
  if (state.rail !== 'crypto') throw new PaymentDomainError('wrong_rail', 'Claims are for crypto checkouts.');
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

function markSent(command: MarkSent, state: OpenCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (state.rail !== 'crypto') throw new PaymentDomainError('wrong_rail', 'Simulated transfers are for crypto checkouts.');
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
    case 'underpaid':
      return detect(state, ctx, command.txHash, state.network, simulatedUnderpaid(due), false, true, command.fromAddress ?? null);
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
 */
function detect(state: OpenCheckoutState, ctx: DecideContext, txHash: string, network: NetworkId, amount: bigint, late: boolean, simulated: boolean, fromAddress: string | null = null): CheckoutEvent[] {
  if (state.transfers.some((t) => t.txHash === txHash)) return []; // seen already
  if (state.status === 'completed' || state.status === 'needs_review') return [];
  const events: CheckoutEvent[] = [];
  const held = state.status === 'confirming';
  const ended = !held && (late || quoteEnded(state, ctx.now) || state.status === 'canceled' || state.status === 'failed');
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
    },
  });
  if (network !== state.network || ended) {
    events.push({ type: 'CheckoutNeedsReview', data: { checkout_id: state.id, payment_id: state.paymentId, review_reason: network !== state.network ? 'wrong_network' : 'late', tx_hash: txHash } });
  }
  return events;
}

function confirm(command: RecordCheckoutConfirmations, state: OpenCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  const transfer = state.transfers.find((t) => t.txHash === command.txHash);
  if (!transfer) return []; // not a transfer of this checkout
  if (state.status !== 'confirming' && state.status !== 'needs_review') return [];
  const { required } = state.confirmations;
  const target = Math.min(command.current, required);
  const events: CheckoutEvent[] = [];
  for (let n = transfer.current + 1; n <= target; n++) {
    events.push({ type: 'CheckoutConfirmationRecorded', data: { checkout_id: state.id, tx_hash: command.txHash, current: n, required } });
  }
  if (events.length === 0 || target < required || state.status !== 'confirming') return events;
  // Another transfer on the quoted network is still confirming: it decides.
  if (state.transfers.some((t) => t.txHash !== transfer.txHash && t.network === state.network && t.current < required)) return events;
  if (state.received >= state.expected) {
    const over = overpaid(state.expected, state.received);
    events.push({
      type: 'CheckoutCompleted',
      data: { checkout_id: state.id, payment_id: state.paymentId, received_amount: fmt(state.received, state.decimals), overpaid_amount: over > 0n ? fmt(over, state.decimals) : null },
    });
  } else {
    events.push({
      type: 'CheckoutAwaitingCustomer',
      data: {
        checkout_id: state.id,
        received_amount: fmt(state.received, state.decimals),
        remaining_amount: fmt(remaining(state.expected, state.received), state.decimals),
        expires_at: laterOf(state.expiresAt, new Date(ctx.now.getTime() + state.quoteTtlMs).toISOString()),
      },
    });
  }
  return events;
}

/**
 * A transfer whose block a reorganisation took away before it was final (a chain watcher's
 * report): the checkout no longer counts it. A final transfer is never withdrawn (its
 * confirmations reached `required`, where watchers stop), nor one of a completed checkout. A
 * confirming checkout left with nothing confirming takes transfers again — `open`, or
 * `awaiting_customer` when a confirmed short transfer remains — and ends at once when its quote
 * ended meanwhile (the quote was held only while the transfer confirmed).
 */
function withdraw(command: WithdrawTransfer, state: OpenCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  const transfer = state.transfers.find((t) => t.txHash === command.txHash);
  if (!transfer || state.status === 'completed' || transfer.current >= state.confirmations.required) return [];
  const received = transfer.network === state.network ? state.received - transfer.amount : state.received;
  const left = remaining(state.expected, received);
  const over = overpaid(state.expected, received);
  const after = state.transfers.filter((t) => t.txHash !== transfer.txHash);
  const status = state.status === 'confirming' ? statusWithout(after, state) : (state.status as Exclude<CheckoutStatus, 'completed'>); // completed returned above
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
        remaining_amount: left > 0n ? fmt(left, state.decimals) : null,
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
function statusWithout(transfers: readonly CheckoutTransfer[], state: OpenCheckoutState): 'open' | 'awaiting_customer' | 'confirming' {
  const required = state.confirmations.required;
  if (transfers.some((t) => t.network === state.network && t.current < required)) return 'confirming';
  return transfers.some((t) => t.network === state.network) ? 'awaiting_customer' : 'open';
}

function expire(state: OpenCheckoutState, ctx: DecideContext): CheckoutEvent[] {
  if (state.status !== 'open' && state.status !== 'awaiting_customer') return []; // ended already, or a transfer is confirming
  if (!quoteEnded(state, ctx.now)) return []; // an early timer changes nothing
  return [{ type: 'CheckoutExpired', data: { checkout_id: state.id, payment_id: state.paymentId, received_amount: fmt(state.received, state.decimals) } }];
}

function fail(command: FailCheckout, state: OpenCheckoutState): CheckoutEvent[] {
  if (state.status === 'failed') return [];
  if (state.status !== 'open' && state.status !== 'awaiting_customer') return []; // ended otherwise: its own outcome stands
  return [{ type: 'CheckoutFailed', data: { checkout_id: state.id, payment_id: state.paymentId, failure_code: command.failureCode } }];
}

/** The checkout aggregate as one Decider: what the command runner and the given/when/then tests use. */
export const checkoutDecider: Decider<CheckoutCommand, CheckoutEvent, CheckoutState, DecideContext> = { initialState: initialCheckoutState, decide: decideCheckout, evolve: evolveCheckout };
