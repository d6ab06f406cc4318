import { createHash } from 'node:crypto';
import { ignoreUnknown } from '@lib/domain';
import { CheckoutCommand, CheckoutState, OpenCryptoCheckout } from './checkout.decider';
import { CheckoutEvent } from './checkout.events';
import { LivePaymentState, PaymentCommand, PaymentState, acceptCountsCard, arrivedValueMinor, evolvePayment, quoteTotal } from './payment.decider';
import { PaymentEvent } from './payment.events';
import { CHECKOUT_STREAM, PAYMENT_STREAM } from './stream-categories';
import { transferTime } from './shared';

/**
 * The checkout ⇄ payment process manager (DESIGN "process managers / reactors"): pure. It reads
 * one recorded event and the state of that event's own stream folded up to (not including) the
 * event, and returns the commands to decide on other streams. No I/O, no clock, no random ids.
 *
 * Idempotence (0009, "Process manager"): every command carries `id` = uuidv5(causing event id |
 * target stream | command type); the events that command produces are appended with ids
 * `reactionEventId(command.id, index)`. Replaying a reaction (a worker crash between deciding and
 * checkpointing, a rebuild) gives the same command ids and so the same event ids; the store treats
 * an id already in the stream as a no-op, and every Record… and FailCheckout command is also retry-safe in its
 * decider (it yields no events on the state it produced). The causing event id goes into the new
 * events' metadata as `causationId`.
 */

export interface ReactContext {
  /** The causing event's id (the store's UUID). */
  eventId: string;
  /** For a checkout event: its checkout stream folded up to, not including, the event. */
  checkout?: CheckoutState;
  /** For a payment event: its payment stream folded up to, not including, the event. */
  payment?: PaymentState;
}

/**
 * A remainder checkout the caller opens: everything but what needs I/O or business settings,
 * which the caller adds (`address` reserved for the checkout, `simulated` from the business,
 * `quoteTtlMs`). The checkout id is the one the payment recorded, so opening it twice is a no-op.
 */
export type RemainderCheckoutOpening = Omit<OpenCryptoCheckout, 'address' | 'wallet' | 'simulated' | 'quoteTtlMs'> & {
  /** The address request-remainder reserved (PaymentRemainderRequested), absent on events stored before wallets. */
  reserved?: { address: string; walletId: string; index: number };
};

interface ReactionBase {
  /** Deterministic: uuidv5(causationId | stream | command type). */
  id: string;
  causationId: string;
  /** `payment-<pmt_id>` or `checkout-<chk_id>`. */
  stream: string;
}
export type Reaction =
  | (ReactionBase & { target: 'payment'; paymentId: string; command: PaymentCommand })
  | (ReactionBase & { target: 'checkout'; checkoutId: string; command: CheckoutCommand })
  | (ReactionBase & { target: 'open_checkout'; checkoutId: string; command: RemainderCheckoutOpening });

/** The fixed namespace of reaction ids (a random v4, never to change: stored ids depend on it). */
export const REACTION_NAMESPACE = '3b0f8a52-6c1e-4d2a-9f47-8e5d1c0b7a93';

/**
 * The event ids of a create run under an Idempotency-Key (WriteMeta.idempotencySeed): the same for
 * every run of the same request, so a run racing or following a dead first run appends the same
 * ids; undefined (random ids) without a seed.
 */
export function seededEventIds(seed: string | undefined): ((index: number) => string) | undefined {
  return seed === undefined ? undefined : (i) => uuidv5(`idempotency|${seed}#${i}`);
}

/** RFC 4122 version 5 (SHA-1, name-based) UUID. Pure. */
export function uuidv5(name: string, namespace: string = REACTION_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new TypeError(`namespace must be a UUID, got ${namespace}`);
  const bytes = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function reactionId(causationId: string, stream: string, commandType: string): string {
  return uuidv5(`${causationId.toLowerCase()}|${stream}|${commandType}`);
}

/** The id of the `index`-th event a reaction's command produced. */
export function reactionEventId(reactionId: string, index: number): string {
  return uuidv5(`${reactionId.toLowerCase()}#${index}`);
}

export function isCheckoutEvent(event: CheckoutEvent | PaymentEvent): event is CheckoutEvent {
  return event.type.startsWith('Checkout') || event.type === 'CardCheckoutOpened';
}

export function react(event: CheckoutEvent | PaymentEvent, context: ReactContext): Reaction[] {
  return isCheckoutEvent(event) ? fromCheckout(event, context) : fromPayment(event, context);
}

function toPayment(context: ReactContext, paymentId: string, command: PaymentCommand): Reaction {
  const stream = PAYMENT_STREAM.stream(paymentId);
  return { id: reactionId(context.eventId, stream, command.type), causationId: context.eventId, stream, target: 'payment', paymentId, command };
}

function toCheckout(context: ReactContext, checkoutId: string, command: CheckoutCommand): Reaction {
  const stream = CHECKOUT_STREAM.stream(checkoutId);
  return { id: reactionId(context.eventId, stream, command.type), causationId: context.eventId, stream, target: 'checkout', checkoutId, command };
}

function fromCheckout(event: CheckoutEvent, context: ReactContext): Reaction[] {
  switch (event.type) {
    case 'CheckoutOpened': {
      const d = event.data;
      if (d.remainder) return []; // the payment recorded it when the remainder was requested
      return [
        toPayment(context, d.payment_id, { type: 'SelectMethod', checkoutId: d.checkout_id, rail: d.rail, asset: d.asset, network: d.network, rateMinorPerCoin: d.rate.amount, quoteEndsAt: d.expires_at, ...(d.quote_ttl_ms !== undefined ? { quoteTtlMs: d.quote_ttl_ms } : {}), ...(d.business_id !== undefined ? { address: d.address, country: d.country ?? null } : {}), ...(d.wallet_id ? { walletId: d.wallet_id } : {}) }),
      ];
    }
    case 'CheckoutTransferDetected': {
      const d = event.data;
      const before = context.checkout;
      if (!before || before.status === 'none') throw new Error(`react: ${event.type} needs the checkout state before it`);
      // Same rule as the checkout decider: another network → wrong_network; a transfer on an ended
      // checkout (expired — also by `late` or a detection after the quote end — canceled, failed) → late.
      // To a completed checkout or one in review (0025 addenda, 2026-11-28): on its network no review
      // (counted; the payment decides as for any money arriving while it is in review), on another
      // wrong_network (listed for the business, never counted). Its CheckoutCompleted, when the chain
      // settles a claim, closes nothing more on the payment: the claimed checkout had ended there.
      const ended = before.status === 'expired' || before.status === 'canceled' || before.status === 'failed';
      if (before.rail !== 'crypto') throw new Error(`react: ${event.type} on card checkout ${before.id}`);
      const review = d.network !== before.network ? 'wrong_network' : ended ? 'late' : null;
      return [toPayment(context, d.payment_id, { type: 'RecordTransfer', checkoutId: d.checkout_id, txHash: d.tx_hash, network: d.network, amount: d.amount, review, fromAddress: d.from_address ?? null, ...transferredAt(d) })];
    }
    case 'CheckoutTransferSighted':
      // the payment's expiry is held too while the transaction waits to be mined (0023 addendum, 2026-11-29)
      return [toPayment(context, event.data.payment_id, { type: 'RecordSighting', checkoutId: event.data.checkout_id, txHash: event.data.tx_hash, sightedAt: event.data.sighted_at })];
    case 'CheckoutSightingDropped':
      return [toPayment(context, event.data.payment_id, { type: 'DropSighting', checkoutId: event.data.checkout_id, txHash: event.data.tx_hash })];
    case 'CheckoutTransferWithdrawn':
      return [toPayment(context, event.data.payment_id, { type: 'WithdrawTransfer', checkoutId: event.data.checkout_id, txHash: event.data.tx_hash })];
    case 'CheckoutConfirmationRecorded': {
      const d = event.data;
      const before = context.checkout;
      if (!before || before.status === 'none') throw new Error(`react: ${event.type} needs the checkout state before it`);
      const command: PaymentCommand = { type: 'RecordConfirmations', checkoutId: d.checkout_id, txHash: d.tx_hash, current: d.current, required: d.required };
      // One command per confirmation count: the type alone would collide between them.
      const stream = PAYMENT_STREAM.stream(before.paymentId);
      const id = reactionId(context.eventId, stream, `${command.type}:${d.tx_hash}:${d.current}`);
      return [{ id, causationId: context.eventId, stream, target: 'payment', paymentId: before.paymentId, command }];
    }
    case 'CheckoutCompleted':
      return [toPayment(context, event.data.payment_id, { type: 'RecordCheckoutEnded', checkoutId: event.data.checkout_id, outcome: 'completed' })];
    case 'CheckoutExpired':
      return [toPayment(context, event.data.payment_id, { type: 'RecordCheckoutEnded', checkoutId: event.data.checkout_id, outcome: 'expired' })];
    case 'CheckoutCanceled':
      return [toPayment(context, event.data.payment_id, { type: 'RecordCheckoutEnded', checkoutId: event.data.checkout_id, outcome: 'canceled' })];
    case 'CheckoutFailed':
      return [toPayment(context, event.data.payment_id, { type: 'RecordCheckoutEnded', checkoutId: event.data.checkout_id, outcome: 'failed' })];
    case 'CheckoutClaimed':
      return [toPayment(context, event.data.payment_id, { type: 'RecordClaim', checkoutId: event.data.checkout_id, txHash: event.data.tx_hash, network: event.data.network })];
    case 'CardCheckoutOpened': {
      const d = event.data;
      return [toPayment(context, d.payment_id, { type: 'SelectCardMethod', checkoutId: d.checkout_id, quotedMinor: d.breakdown.total, country: d.country ?? null })];
    }
    case 'CheckoutCardAttemptSucceeded': {
      const d = event.data;
      return [
        toPayment(context, d.payment_id, { type: 'RecordCardPayment', checkoutId: d.checkout_id, attemptId: d.attempt_id, processor: d.processor, brand: d.brand, last4: d.last4, amountMinor: d.amount, review: d.review_reason }),
      ];
    }
    case 'CheckoutCardAttemptStarted':
    case 'CheckoutCardAttemptDeclined': // the payment stays pending: another route, or another checkout, may still pay it
    case 'CheckoutCardAttemptTimedOut':
    case 'CheckoutSuperseded':
    case 'CheckoutAwaitingCustomer': // the payment decides underpaid on its own confirmations
    case 'CheckoutNeedsReview': // carried by RecordTransfer's review flag (a duplicate_payment review came from the payment)
    case 'CheckoutReviewResolved': // caused by the payment's success: nothing to tell it
    case 'CheckoutCardChargeHeld': // caused by the payment's review of the charge: it knows
    case 'CheckoutPaymentCovered': // caused by the payment: nothing to tell it (a CheckoutCompleted it leads to closes the checkout there)
      return [];
    default:
      return ignoreUnknown(event, []); // a new type left out fails to compile; a stored type this version does not know causes nothing
  }
}

/** The transfer's time as the checkout records it, for the payment (decision 0009, addendum 2026-11-30); nothing on events stored before. */
function transferredAt(d: { detected_at?: string; mined_at?: string }): { transferredAt?: string } {
  const at = transferTime(d.detected_at, d.mined_at);
  return at === null ? {} : { transferredAt: at };
}

function fromPayment(event: PaymentEvent, context: ReactContext): Reaction[] {
  const before = context.payment;
  if (!before || before.status === 'none') {
    if (event.type === 'PaymentCreated') return [];
    throw new Error(`react: ${event.type} needs the payment state before it`);
  }
  const failOpen = (failureCode: string): Reaction[] =>
    Object.entries(before.checkouts)
      .filter(([, c]) => c.open)
      .map(([id]) => toCheckout(context, id, { type: 'FailCheckout', failureCode }));
  switch (event.type) {
    case 'PaymentMethodSelected':
    case 'PaymentCardMethodSelected':
      // §4 supersede: "a new checkout for an API payment sets that payment's earlier quotes aside
      // by itself" — they stay watched until they expire but stop being the quote on screen.
      return Object.entries(before.checkouts)
        .filter(([id, c]) => c.open && !c.remainder && id !== event.data.checkout_id)
        .map(([id]) => toCheckout(context, id, { type: 'SupersedeCheckout', by: 'payment' }));
    case 'PaymentCanceled':
      return failOpen('payment_canceled');
    case 'PaymentExpired':
      return failOpen('payment_expired');
    case 'PaymentSucceeded':
      // A paid payment's checkouts still open end (`failed`, `payment_succeeded`): nothing is due any
      // more. A card then charged there is `paid_after_close` on the checkout too (needs_review), not
      // a second `completed` (decision 0026 addendum, 2026-11-28); a transfer that still reaches a
      // crypto quote — a remainder (0009 addendum, 2026-11-29), or another quote of the payment,
      // superseded or not, the customer left on screen with nothing sent to it (0009 addendum,
      // nineteenth session) — is late money for the business to review, never a second `completed`
      // counted nowhere. A quote something was already sent to (confirming, awaiting the rest, or
      // seen in the mempool) stays: its transfers are counted or listed by their own rules (0025 addenda).
      // And the review of its checkouts ends with the payment's (0025 addendum, 2026-11-29).
      // A quote left short — the first one, paid through its remainder or accepted — asks for no
      // more either (0012 addendum, 2026-11-29, paid; api audit L3); a remainder checkout something
      // reached is such a quote too: it completes with what it has, never `failed` beside money that
      // counted (recheck audit M1).
      return [
        ...Object.entries(before.checkouts)
          .filter(([id, c]) => c.open && (c.card === true || !paidTowards(before, id)))
          .map(([id]) => toCheckout(context, id, { type: 'FailCheckout', failureCode: 'payment_succeeded' })),
        ...coveredOnSuccess(before, context),
        ...resolveReviews(before, event.data.accepted, context),
      ];
    case 'PaymentFailed':
      // A link payment failed because its checkout was canceled (closed by the PaymentCheckoutEnded
      // before this event): any other checkout still open on it fails too.
      return failOpen('payment_failed');
    case 'PaymentRemainderRequested': {
      const d = event.data;
      const method = before.method;
      if (method === null) throw new Error(`react: payment ${before.id} has a remainder but no method`);
      const command: RemainderCheckoutOpening = {
        type: 'OpenCheckout',
        checkoutId: d.checkout_id,
        paymentId: before.id,
        linkId: before.linkId,
        rail: 'crypto',
        asset: d.asset,
        network: d.network,
        // the rate the handler read when the remainder was requested (0020); older remainders reuse the method's
        rateMinorPerCoin: d.rate?.amount ?? method.rate,
        ...(d.rate !== undefined ? { rateOrigin: { source: d.rate.source, at: d.rate.at } } : {}),
        currency: d.currency,
        priceMinor: before.amount,
        feePayer: before.feePayer,
        feeRateBps: before.feeRateBps,
        remainder: { amount: d.crypto_amount, priceMinor: d.amount },
        ...(d.address && d.wallet_id && d.address_index !== undefined ? { reserved: { address: d.address, walletId: d.wallet_id, index: d.address_index } } : {}),
        details:
          before.details.business_id === undefined
            ? undefined
            : { business_id: before.details.business_id, email: before.details.customer_email ?? null, country: null, success_url: before.details.success_url ?? null, replaces: null, simulate: null },
      };
      const stream = CHECKOUT_STREAM.stream(d.checkout_id);
      return [{ id: reactionId(context.eventId, stream, command.type), causationId: context.eventId, stream, target: 'open_checkout', checkoutId: d.checkout_id, command }];
    }
    case 'PaymentTransferDetected':
      return secondPayment(event, before, context);
    case 'PaymentCreated':
    case 'PaymentMetadataUpdated':
    case 'PaymentTransferSighted':
    case 'PaymentSightingDropped':
    case 'PaymentTransferWithdrawn':
    case 'PaymentConfirmationRecorded':
    case 'PaymentTransferCountedAfterSuccess':
    case 'PaymentUnderpaid':
    case 'PaymentRemainderPaid':
    case 'PaymentNeedsReview':
    case 'PaymentClaimed':
    case 'PaymentAccepted': // its PaymentSucceeded (`accepted: true`) follows in the same append and ends the checkouts' review
    case 'PaymentCheckoutEnded':
      return [];
    case 'PaymentCardCharged': {
      // a charge the payment put under review: its checkout, if it completed on it, is in review too
      // (decision 0026 addendum, 2026-11-29) — never a second `completed` beside a quote being paid
      const d = event.data;
      if (d.review !== 'paid_after_close' && d.review !== 'paid_after_cancel') return [];
      return [toCheckout(context, d.checkout_id, { type: 'HoldCardCharge', attemptId: d.attempt_id, reason: d.review })];
    }
    default:
      return ignoreUnknown(event, []);
  }
}

/**
 * A transfer that made the payment a second payment — it reached a quote while the payment already
 * takes another quote's money (`superseded_quote`, 0011 addendum) — and what follows (0025
 * addendum, 2026-11-29, multi-quote):
 * - its checkout goes to review with `duplicate_payment` (ReviewDuplicatePayment), so the business
 *   and the hosted page see why the payment is in review;
 * - once everything that reached the payment's quotes, each valued at its own quote (decision 0007
 *   per quote), holds the payment's price (breakdown total), every checkout something reached is
 *   told nothing more is due (RecordPaymentCovered): no remaining amount, no payment URI, a short
 *   quote completes with what it has. A payment that succeeded has its own rules (0025 addenda).
 * Only where money the payment does not count by itself was recorded — a second payment, or a
 * transfer under review for any reason (late, wrong network: 0025 addendum, 2026-11-29, covered
 * late): a payment paid through one quote (and its remainders) decides on its own confirmations,
 * and its checkouts hear nothing. A remainder checkout still open with nothing sent to it is told
 * too (recheck audit N4): it stops asking for what the money already held covers.
 */
function secondPayment(event: Extract<PaymentEvent, { type: 'PaymentTransferDetected' }>, before: LivePaymentState, context: ReactContext): Reaction[] {
  const reactions: Reaction[] = [];
  if (event.data.review === 'superseded_quote') reactions.push(toCheckout(context, event.data.checkout_id, { type: 'ReviewDuplicatePayment', txHash: event.data.tx_hash }));
  const after = evolvePayment(before, event) as LivePaymentState;
  const transfers = Object.values(after.transfers);
  if (after.status === 'succeeded' || !transfers.some((t) => t.review !== null)) return reactions;
  if (arrivedValueMinor(after) < quoteTotal(after)) return reactions;
  const reached = [...new Set(transfers.map((t) => t.checkoutId))].filter((id) => after.checkouts[id]?.card !== true);
  const asking = Object.entries(after.checkouts)
    .filter(([id, c]) => c.remainder && c.open && !reached.includes(id))
    .map(([id]) => id);
  return [...reactions, ...[...reached, ...asking].map((id) => toCheckout(context, id, { type: 'RecordPaymentCovered' }))];
}

/**
 * A payment that succeeds after it was short (underpaid: paid through its remainder) or in review
 * (accepted, or paid in full under review for a claim alone) tells every crypto checkout a
 * transfer reached that nothing more is due (RecordPaymentCovered, `succeeded`; 0012 addendum,
 * 2026-11-29, paid; api audit L3): the checkout decider records it only on one still short of its
 * quote — the expired first quote of an underpaid payment, a remainder paid short — so no checkout
 * of a paid payment shows a remaining amount or a payment URI. A plain success (from pending: no
 * quote was left short) costs no reaction.
 */
function coveredOnSuccess(before: LivePaymentState, context: ReactContext): Reaction[] {
  if (before.status !== 'underpaid' && before.status !== 'needs_review') return [];
  const reached = new Set(Object.values(before.transfers).map((t) => t.checkoutId));
  return Object.entries(before.checkouts)
    .filter(([id, c]) => c.card !== true && reached.has(id))
    .map(([id]) => toCheckout(context, id, { type: 'RecordPaymentCovered', succeeded: true }));
}

/**
 * A payment that succeeds while it is in review — accepted by the business, or paid in full on a
 * counted transfer while under review for a claim alone — ends the review of its checkouts (0025
 * addendum, 2026-11-29): ResolveReview goes to every checkout of the payment, and the checkout
 * decider acts only on one in `needs_review` (the payment does not know its checkouts' statuses).
 * `counted` follows what acceptance counted (the payment decider's `accept`): the card charges, or
 * the crypto of every quote with the claim (each coin at its quote's rate since the 0025 addendum
 * of 2026-11-29, multi-quote: a second coin's checkout completes too); a success that was not an acceptance counted no
 * reviewed money (a payment with money under review succeeds only by acceptance). A payment that
 * was not in review has no checkout in review to end: nothing is sent, so a plain success costs no
 * reaction.
 */
function resolveReviews(before: LivePaymentState, accepted: boolean, context: ReactContext): Reaction[] {
  if (before.status !== 'needs_review') return [];
  const card = acceptCountsCard(before);
  const crypto = before.method !== null;
  return Object.entries(before.checkouts).map(([id, c]) => {
    // acceptance counts every quote's coin at its own rate (0025 addendum, 2026-11-29, multi-quote)
    const counted = accepted && (c.card === true ? card : !card && crypto);
    return toCheckout(context, id, { type: 'ResolveReview', resolution: accepted ? 'payment_accepted' : 'payment_succeeded', counted });
  });
}

/**
 * What a checkout does when its payment refused a reaction (a PaymentDomainError: a decision, not
 * a fault, 0009), or null when nothing follows. Pure; the caller decides it with event ids derived
 * from the refused reaction's id, so a replay appends nothing.
 *
 * - SelectMethod / SelectCardMethod refused (the payment cannot take that checkout): the checkout
 *   fails with the reason.
 * - RecordClaim refused with `payment_paid` (0025 addendum, 2026-11-29): the checkout took the claim
 *   while the payment's success was being recorded (the claim handler read it unpaid), so the
 *   checkout is in review for a claim the payment never will be: its review ends as for any claimed
 *   checkout of a payment paid without its claim — `failed`, `payment_succeeded`.
 */
export function afterRefusal(reaction: Reaction, code: string): { checkoutId: string; command: CheckoutCommand } | null {
  if (reaction.target !== 'payment') return null;
  const command = reaction.command;
  if (command.type === 'SelectMethod' || command.type === 'SelectCardMethod') return { checkoutId: command.checkoutId, command: { type: 'FailCheckout', failureCode: code } };
  if (command.type === 'RecordClaim' && code === 'payment_paid') return { checkoutId: command.checkoutId, command: { type: 'ResolveReview', resolution: 'payment_succeeded', counted: false } };
  return null;
}

/** Whether anything was sent to the payment's checkout `checkoutId`: a transfer recorded, or one seen in the mempool. */
function paidTowards(payment: LivePaymentState, checkoutId: string): boolean {
  return Object.values(payment.transfers).some((t) => t.checkoutId === checkoutId) || Object.values(payment.sightings).some((s) => s.checkoutId === checkoutId);
}
