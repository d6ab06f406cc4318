import { Injectable } from '@nestjs/common';
import type { NetworkId } from '@lib/chains';
import { CommandRunner, LogPosition, SYSTEM_ACTOR } from '@lib/eventstore';
import { DueTimer, Timer, TimerLease, TimerStore, dueOrder } from '@lib/timers';
import { uuidv5 } from '../domain/checkout-to-payment';
import { CheckoutCommand } from '../domain/checkout.decider';
import { PaymentCommand, PaymentState } from '../domain/payment.decider';
import { isCheckoutId } from '../domain/stream-categories';
import { CardAttempts } from './card-attempts';
import { ChainReadThrough } from './chain-read-through';
import { TIMER_KINDS } from './payment-timers';
import { later } from './positions';
import { PaymentsProcessManager } from './process-manager';
import { simulatedSenderAddress, simulatedTxHash } from './simulated-chain';
import { DecideOptions, PaymentStreams } from './streams';

/** Due timers one look of fireDue claims at most. */
const CLAIM_BATCH = 50;
/** How long fireDue's claims hold a timer against other workers (as the worker's TimerRunner). */
const LEASE_MS = 30_000;
/** How far apart the processes' wall clocks may be when fireDue asks what others fired since the move. */
const CLOCK_SKEW_MS = 1000;

/**
 * What a payment timer does when it fires (decisions 0010, 0011): the worker's TimerRunner calls
 * `fire` for every kind in TIMER_KINDS; `POST /test_clock/advance` (the advance-test-clock use
 * case) calls `fireDue` for one business. A timer's command runs with `now` = its due time and
 * event ids derived from the timer id (a second firing appends nothing), then settles like a
 * request. A refusal (the checkout moved on) is an answer, not a failure.
 */
@Injectable()
export class TimerFiring {
  constructor(
    private readonly streams: PaymentStreams,
    private readonly process: PaymentsProcessManager,
    private readonly timers: TimerStore,
    private readonly runner: CommandRunner,
    private readonly cards: CardAttempts,
    private readonly readThrough: ChainReadThrough,
  ) {}

  /**
   * The handler of every payment timer kind; resolves the position of the last event it caused.
   * With a `lease` (fireDue), the timers the firing sets that are due already are scheduled
   * leased to the caller (lease.taken), which fires them next.
   */
  async fire(timer: Timer, lease?: TimerLease): Promise<LogPosition | null> {
    const now = timer.dueAt;
    const options: DecideOptions = { now, eventId: (i) => uuidv5(`timer|${timer.id}#${i}`), metadata: { causationId: `timer:${timer.id}`, actor: SYSTEM_ACTOR } };
    switch (timer.kind) {
      case TIMER_KINDS.quoteExpiry: {
        const network = (timer.payload as { network?: NetworkId } | null)?.network;
        if (network !== undefined && (await this.waitsForChains(timer, [network]))) return null;
        return this.onCheckout(timer.subject, { type: 'ExpireCheckout' }, options, lease);
      }
      case TIMER_KINDS.simulatedArrival: {
        const checkout = await this.streams.checkout(timer.subject);
        // only the quote on screen receives the simulated transfer (§4 supersede)
        if (checkout.status !== 'open' || checkout.rail !== 'crypto' || checkout.superseded) return null;
        const txHash = simulatedTxHash(checkout.network, timer.id);
        return this.onCheckout(timer.subject, { type: 'MarkSent', simulate: checkout.simulate ?? 'exact', txHash, fromAddress: simulatedSenderAddress(checkout.network, txHash) }, options, lease);
      }
      case TIMER_KINDS.confirmation: {
        const payload = timer.payload as { tx_hash: string; current: number };
        return this.onCheckout(timer.subject, { type: 'RecordConfirmations', txHash: payload.tx_hash, current: payload.current }, options, lease);
      }
      case TIMER_KINDS.paymentExpiry:
        if ((timer.payload as { live?: boolean } | null)?.live === true && (await this.waitsForChains(timer, openQuoteNetworks(await this.streams.payment(timer.subject))))) return null;
        return this.onPayment(timer.subject, { type: 'ExpirePayment' }, options, lease);
      case TIMER_KINDS.cardAttemptExpiry:
        return this.cards.expire(timer.subject, (timer.payload as { attempt_id: string }).attempt_id, options);
      default:
        throw new Error(`no handler for timer kind ${timer.kind}`);
    }
  }

  /**
   * Fires the business's due timers one at a time, oldest first, including those the firing
   * itself schedules already due (an arrival's confirmations). A due timer another worker holds
   * is waited for (bounded), so the caller sees its effects too. Then waits until the read models
   * have every event those timers appended — by their positions, never the visible head (on
   * PostgreSQL an unrelated open transaction can hold the visible head behind them). A worker's
   * poll may take any of these timers, even one that came due during this call, and finish it
   * between two of this loop's looks: so the last events of every checkout or payment one of
   * whose timers someone else fired, held or failed are read at the end too (below).
   *
   * `moved`: the business's due timers as listed when its clock moved, and the wall time of the
   * move (advanceClockListingDue); read here when not given. One statement per wake-up
   * (claimAndListDue) marks what fired since the last, claims every due timer (up to
   * CLAIM_BATCH) and lists those held elsewhere; the timers a firing sets already due are
   * scheduled leased to this call and fired next in due order, without a claim of their own. A
   * claimed timer whose lease is half gone before its turn is claimed again by the next look
   * (unless someone claimed it since), never fired on an old lease. The same looks tell which of
   * the subjects someone else touched (a timer of theirs fired elsewhere since the move, or
   * failing, or held by another worker): only those subjects' last events are read at the end —
   * what this call fired, it knows the positions of.
   */
  async fireDue(businessId: string, deadlineMs = 10_000, moved?: { due: readonly DueTimer[]; movedAt: Date }): Promise<number> {
    const deadline = Date.now() + deadlineMs;
    const kinds = Object.values(TIMER_KINDS);
    let fired = 0;
    let last: LogPosition | null = null;
    // fired elsewhere since a second before the move (the processes' wall clocks are synchronised, as for the leases)
    const since = new Date((moved?.movedAt ?? this.timers.wallNow()).getTime() - CLOCK_SKEW_MS);
    const due = moved?.due ?? (await this.timers.dueTimers(businessId));
    const touched = new Set(due.map((t) => t.subject));
    const elsewhere = new Set(due.filter((t) => t.leased).map((t) => t.subject)); // subjects whose last events are read at the end
    const firedAll: string[] = []; // every timer this call fired
    let firedHere: string[] = []; // fired since the last look: marked fired by the next one, in its statement
    let mine: Timer[] = []; // claimed, not fired yet, lease half gone: claimed again by the next look
    for (;;) {
      const look = await this.timers.claimAndListDue(businessId, { limit: CLAIM_BATCH, leaseMs: LEASE_MS, kinds, fired: firedHere, mine, watch: { subjects: touched, firedHere: firedAll, since } });
      const { claimed, held } = look;
      firedAll.push(...firedHere);
      firedHere = [];
      mine = [];
      for (const subject of look.touchedByOthers) elsewhere.add(subject);
      for (const t of held) {
        touched.add(t.subject);
        elsewhere.add(t.subject);
      }
      if (claimed.length === 0) {
        if (held.length === 0 || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      const queue = claimed; // in due order
      while (queue.length > 0) {
        const timer = queue[0];
        if (timer.lockedUntil !== null && this.timers.wallNow().getTime() > timer.lockedUntil.getTime() - LEASE_MS / 2) {
          mine = queue.splice(0);
          break;
        }
        queue.shift();
        touched.add(timer.subject);
        const lease: TimerLease = { leaseMs: LEASE_MS, kinds, taken: [] };
        try {
          last = later(last, await this.fire(timer, lease));
        } catch (error) {
          await this.timers.releaseClaims(firedHere, [...queue, ...lease.taken]);
          await this.timers.markFailed(timer.id, error instanceof Error ? `${error.name}: ${error.message}` : String(error), new Date(Date.now() + 1000), timer.attempts);
          throw error;
        }
        firedHere.push(timer.id);
        fired++;
        for (const next of lease.taken) {
          touched.add(next.subject);
          const at = queue.findIndex((q) => dueOrder(next, q) < 0);
          queue.splice(at < 0 ? queue.length : at, 0, next);
        }
      }
    }
    // what the firings of subjects someone else touched appended, here or in a worker: the last events of their streams and of the payments behind them
    for (const subject of elsewhere) {
      if (isCheckoutId(subject)) {
        const checkout = await this.streams.loadCheckout(subject);
        last = later(last, checkout.head);
        if (checkout.state.status !== 'none') last = later(last, await this.streams.head('payment', checkout.state.paymentId));
      } else {
        last = later(last, await this.streams.head('payment', subject));
      }
    }
    if (last) await this.runner.waitFor(last);
    return fired;
  }

  /**
   * A live quote's or payment's end waits for the chains (decision 0025, addendum of 2026-11-29,
   * lateness at mining): while the watcher of one of `networks` has not read through the end,
   * the timer is scheduled again for the next look (ChainReadThrough) and fires nothing now.
   * The end travels in the payload of the next look's timer, whose own id counts the looks.
   */
  private async waitsForChains(timer: Timer, networks: readonly NetworkId[]): Promise<boolean> {
    const payload = (timer.payload ?? {}) as { ends_at?: string; first?: string; looks?: number };
    const endsAt = payload.ends_at ? new Date(payload.ends_at) : timer.dueAt;
    const next = await this.readThrough.nextLook(networks, endsAt, this.timers.wallNow());
    if (next === null) return false;
    const first = payload.first ?? timer.id;
    const looks = (payload.looks ?? 0) + 1;
    await this.timers.schedule({
      id: `${first}|look:${looks}`,
      businessId: timer.businessId,
      kind: timer.kind,
      subject: timer.subject,
      payload: { ...payload, ends_at: endsAt.toISOString(), first, looks },
      dueAt: next,
    });
    return true;
  }

  private onCheckout(checkoutId: string, command: CheckoutCommand, options: DecideOptions, lease?: TimerLease): Promise<LogPosition | null> {
    return this.process.decideAndSettle({ checkoutId, command }, options, lease);
  }

  private onPayment(paymentId: string, command: PaymentCommand, options: DecideOptions, lease?: TimerLease): Promise<LogPosition | null> {
    return this.process.decideAndSettle({ paymentId, command }, options, lease);
  }
}

/** The networks of a payment's crypto checkouts still open (a remainder's is its method's). */
export function openQuoteNetworks(payment: PaymentState): NetworkId[] {
  if (payment.status === 'none') return [];
  const networks = Object.entries(payment.checkouts)
    .filter(([, c]) => c.open && !c.card)
    .map(([id]) => payment.quotes[id]?.method.network ?? payment.method?.network)
    .filter((network): network is NetworkId => network !== undefined);
  return [...new Set(networks)];
}
