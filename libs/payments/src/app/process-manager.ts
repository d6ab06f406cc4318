import { Inject, Injectable } from '@nestjs/common';
import { unhandled } from '@lib/domain';
import { LogPosition, SYSTEM_ACTOR } from '@lib/eventstore';
import { ScheduleTimer, TimerLease, TimerStore } from '@lib/timers';
import { CheckoutCommand, CheckoutState, OpenCryptoCheckout } from '../domain/checkout.decider';
import { CheckoutEvent } from '../domain/checkout.events';
import { Reaction, afterRefusal, react, reactionEventId } from '../domain/checkout-to-payment';
import { PaymentDomainError } from '../domain/errors';
import { LivePaymentState, PaymentCommand, PaymentState } from '../domain/payment.decider';
import { PaymentEvent } from '../domain/payment.events';
import { timersForCheckoutEvent, timersForPaymentEvent } from './payment-timers';
import { later } from './positions';
import { PAYMENTS_SETTINGS, PaymentsSettings } from './settings';
import { simulatedDepositAddress } from './simulated-chain';
import { AppendedEvent, DecideOptions, PaymentStreams } from './streams';

export interface SettleResult {
  /** Position of the last event the reactions appended (or found appended under their ids); null when nothing followed. */
  position: LogPosition | null;
}

/**
 * The checkout ⇄ payment process manager, run (decisions 0009, 0011): for every new event,
 * schedule the timers it sets (payment-timers.ts) and decide the reactions the pure `react`
 * (checkout-to-payment.ts) returns on their streams, with deterministic event ids, then settle
 * those reactions' events in turn until nothing more happens. One service, used by every use
 * case after its append, by timer firing, and by the worker's PaymentsReactor (the backstop for
 * a process that died between an append and its reactions): running a reaction twice appends
 * nothing, so whoever settles first wins and the others find the same chain.
 */
@Injectable()
export class PaymentsProcessManager {
  /**
   * Events this process settled completely (insertion-ordered, bounded): the backstop in the same
   * process skips them. After a crash the set is gone, so the backstop settles them again.
   */
  private readonly settledHere = new Set<string>();

  constructor(
    readonly streams: PaymentStreams,
    private readonly timers: TimerStore,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
  ) {}

  /**
   * Runs the process manager on new events until nothing more happens: each event's reactions
   * are decided on their streams with deterministic event ids (so the worker's backstop running
   * the same reactions appends nothing), and each event's timers are scheduled — with a `lease`
   * (the test clock's advance firing due timers), those already due are scheduled leased to the
   * caller, which fires them next (TimerStore.scheduleMany).
   */
  async settle(appended: readonly AppendedEvent[], lease?: TimerLease): Promise<SettleResult> {
    const queue = [...appended];
    let position: LogPosition | null = null;
    const done: string[] = [];
    while (queue.length > 0) {
      const next = queue.shift()!;
      done.push(next.eventId);
      await this.scheduleTimers(next, lease);
      const reactions = react(next.event, next.aggregate === 'payment' ? { eventId: next.eventId, payment: next.before as PaymentState } : { eventId: next.eventId, checkout: next.before as CheckoutState });
      for (const reaction of reactions) {
        const options: DecideOptions = {
          now: new Date(next.occurredAt),
          eventId: (i) => reactionEventId(reaction.id, i),
          metadata: { causationId: reaction.causationId, correlationId: next.correlationId ?? undefined, actor: SYSTEM_ACTOR },
        };
        try {
          const decided = await this.decideReaction(reaction, next, options);
          position = later(position, decided.position);
          queue.push(...decided.appended);
        } catch (error) {
          if (!(error instanceof PaymentDomainError)) throw error;
          // a decision, not a fault (0009): the checkout whose reaction its payment refused acts on it (`afterRefusal`)
          const follow = afterRefusal(reaction, error.code);
          if (follow !== null) {
            const decided = await this.streams.decideCheckout(follow.checkoutId, follow.command, { ...options, eventId: (i) => reactionEventId(`${reaction.id}|refused`, i) });
            position = later(position, decided.position);
            queue.push(...decided.appended);
          }
        }
      }
    }
    for (const id of done) this.settledHere.add(id);
    while (this.settledHere.size > 100_000) this.settledHere.delete(this.settledHere.values().next().value as string);
    return { position };
  }

  /**
   * A command that does not come from a request (a timer, a chain watcher's report) on one
   * stream, then its consequences settled; resolves the position of the last event it caused.
   * A refusal by the rules (the checkout moved on meanwhile) is an answer, not a fault: null.
   */
  async decideAndSettle(target: { checkoutId: string; command: CheckoutCommand } | { paymentId: string; command: PaymentCommand }, options: DecideOptions, lease?: TimerLease): Promise<LogPosition | null> {
    try {
      const decided = 'checkoutId' in target ? await this.streams.decideCheckout(target.checkoutId, target.command, options) : await this.streams.decidePayment(target.paymentId, target.command, options);
      return later(decided.position, (await this.settle(decided.appended, lease)).position);
    } catch (error) {
      if (error instanceof PaymentDomainError) return null;
      throw error;
    }
  }

  /** True when this process already settled the event (the backstop can skip it). */
  settledInThisProcess(eventId: string): boolean {
    return this.settledHere.has(eventId);
  }

  private async decideReaction(reaction: Reaction, cause: AppendedEvent, options: DecideOptions) {
    switch (reaction.target) {
      case 'payment':
        return this.streams.decidePayment(reaction.paymentId, reaction.command, options);
      case 'checkout':
        return this.streams.decideCheckout(reaction.checkoutId, reaction.command, options);
      case 'open_checkout': {
        // the remainder checkout: what needs I/O or settings comes in here (address, simulated, quote life)
        const payment = cause.after as LivePaymentState;
        const businessId = payment.details.business_id ?? 'unknown';
        const { reserved, ...opening } = reaction.command;
        const command: OpenCryptoCheckout = {
          ...opening,
          // the address request-remainder reserved in the business's wallet; a remainder requested before wallets existed keeps the simulated one
          address: reserved?.address ?? simulatedDepositAddress(businessId, reaction.checkoutId, reaction.command.network),
          wallet: reserved ? { walletId: reserved.walletId, index: reserved.index } : null,
          simulated: payment.details.mode === 'test',
          quoteTtlMs: this.settings.quoteTtlMs,
        };
        return this.streams.decideCheckout(reaction.checkoutId, command, options);
      }
      default:
        return unhandled(reaction, 'reaction');
    }
  }

  private async scheduleTimers(appended: AppendedEvent, lease?: TimerLease): Promise<void> {
    const timers: ScheduleTimer[] =
      appended.aggregate === 'payment'
        ? timersForPaymentEvent(appended.event as PaymentEvent, appended.after as PaymentState)
        : timersForCheckoutEvent(appended.event as CheckoutEvent, appended.after as CheckoutState, appended.occurredAt);
    await this.timers.scheduleMany(timers, undefined, lease); // one statement for all of them (CheckoutOpened sets two)
  }
}
