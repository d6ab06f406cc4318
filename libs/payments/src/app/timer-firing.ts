import { Injectable } from '@nestjs/common';
import { CommandRunner, LogPosition, SYSTEM_ACTOR } from '@lib/eventstore';
import { Timer, TimerStore } from '@lib/timers';
import { uuidv5 } from '../domain/checkout-to-payment';
import { CheckoutCommand } from '../domain/checkout.decider';
import { PaymentCommand } from '../domain/payment.decider';
import { isCheckoutId } from '../domain/stream-categories';
import { CardAttempts } from './card-attempts';
import { TIMER_KINDS } from './payment-timers';
import { later } from './positions';
import { PaymentsProcessManager } from './process-manager';
import { simulatedSenderAddress, simulatedTxHash } from './simulated-chain';
import { DecideOptions, PaymentStreams } from './streams';

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
  ) {}

  /** The handler of every payment timer kind; resolves the position of the last event it caused. */
  async fire(timer: Timer): Promise<LogPosition | null> {
    const now = timer.dueAt;
    const options: DecideOptions = { now, eventId: (i) => uuidv5(`timer|${timer.id}#${i}`), metadata: { causationId: `timer:${timer.id}`, actor: SYSTEM_ACTOR } };
    switch (timer.kind) {
      case TIMER_KINDS.quoteExpiry:
        return this.onCheckout(timer.subject, { type: 'ExpireCheckout' }, options);
      case TIMER_KINDS.simulatedArrival: {
        const checkout = await this.streams.checkout(timer.subject);
        // only the quote on screen receives the simulated transfer (§4 supersede)
        if (checkout.status !== 'open' || checkout.rail !== 'crypto' || checkout.superseded) return null;
        const txHash = simulatedTxHash(checkout.network, timer.id);
        return this.onCheckout(timer.subject, { type: 'MarkSent', simulate: checkout.simulate ?? 'exact', txHash, fromAddress: simulatedSenderAddress(checkout.network, txHash) }, options);
      }
      case TIMER_KINDS.confirmation: {
        const payload = timer.payload as { tx_hash: string; current: number };
        return this.onCheckout(timer.subject, { type: 'RecordConfirmations', txHash: payload.tx_hash, current: payload.current }, options);
      }
      case TIMER_KINDS.paymentExpiry:
        return this.onPayment(timer.subject, { type: 'ExpirePayment' }, options);
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
   * between two of this loop's looks: so the last events of every checkout or payment whose
   * timers were due, or fired here, are read at the end too, whoever fired them.
   */
  async fireDue(businessId: string, deadlineMs = 10_000): Promise<number> {
    const deadline = Date.now() + deadlineMs;
    let fired = 0;
    let last: LogPosition | null = null;
    const touched = new Set((await this.timers.dueTimers(businessId)).map((t) => t.subject));
    let firedLast: string | undefined; // marked fired by the next claim, in its statement
    for (;;) {
      const [timer] = await this.timers.claimDue(1, 30_000, Object.values(TIMER_KINDS), businessId, firedLast);
      firedLast = undefined;
      if (timer) {
        touched.add(timer.subject);
        try {
          last = later(last, await this.fire(timer));
          firedLast = timer.id;
          fired++;
        } catch (error) {
          await this.timers.markFailed(timer.id, error instanceof Error ? `${error.name}: ${error.message}` : String(error), new Date(Date.now() + 1000), timer.attempts);
          throw error;
        }
        continue;
      }
      const due = await this.timers.dueTimers(businessId);
      if (due.length === 0 || Date.now() > deadline) break;
      for (const t of due) touched.add(t.subject);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // what every firing of these subjects appended, here or in a worker: the last events of their streams and of the payments behind them
    for (const subject of touched) {
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

  private onCheckout(checkoutId: string, command: CheckoutCommand, options: DecideOptions): Promise<LogPosition | null> {
    return this.process.decideAndSettle({ checkoutId, command }, options);
  }

  private onPayment(paymentId: string, command: PaymentCommand, options: DecideOptions): Promise<LogPosition | null> {
    return this.process.decideAndSettle({ paymentId, command }, options);
  }
}
