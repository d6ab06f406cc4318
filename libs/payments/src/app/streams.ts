import { Decider } from '@lib/domain';
import { CommandRunner, EventMetadata, EventStore, LogPosition, RecordedEvent, StreamNotFoundError } from '@lib/eventstore';
import { CheckoutCommand, CheckoutState, checkoutDecider, evolveCheckout, initialCheckoutState } from '../domain/checkout.decider';
import { CheckoutEvent } from '../domain/checkout.events';
import { CHECKOUT_STREAM, PAYMENT_STREAM, isCheckoutId, isPaymentId } from '../domain/stream-categories';
import { DecideContext } from '../domain/shared';
import { PaymentCommand, PaymentState, evolvePayment, initialPaymentState, paymentDecider } from '../domain/payment.decider';
import { PaymentEvent } from '../domain/payment.events';

/**
 * Runs a command on one payment or checkout stream (DESIGN "Write side"): read the stream, fold,
 * decide, append with the revision read; a concurrent writer's ConcurrencyError is answered by
 * reading again and deciding again, never by skipping the check. Every event gets
 * `metadata.occurredAt`, the time of the decision in the business's own clock.
 */

export type Aggregate = 'payment' | 'checkout';

export interface AppendedEvent {
  aggregate: Aggregate;
  /** pmt_… or chk_… */
  aggregateId: string;
  stream: string;
  eventId: string;
  event: PaymentEvent | CheckoutEvent;
  occurredAt: string;
  /** The stream's state before and after this event. */
  before: PaymentState | CheckoutState;
  after: PaymentState | CheckoutState;
  correlationId: string | null;
}

export interface DecideOptions {
  now: Date;
  /** Event ids for a command that must be idempotent (reactions, timers); random otherwise. */
  eventId?: (index: number) => string;
  metadata: EventMetadata;
}

export interface Decided<S> {
  state: S;
  appended: AppendedEvent[];
  position: LogPosition | null;
}

/**
 * The payment and checkout streams, run through the one CommandRunner (libs/eventstore). The
 * application waits for the read models itself, once a whole chain of reactions has settled.
 */
export class PaymentStreams {
  private readonly runner: CommandRunner;

  constructor(private readonly store: EventStore) {
    this.runner = new CommandRunner(store);
  }

  async payment(paymentId: string): Promise<PaymentState> {
    return this.load('payment', paymentId);
  }

  async checkout(checkoutId: string): Promise<CheckoutState> {
    return this.load('checkout', checkoutId);
  }

  decidePayment(paymentId: string, command: PaymentCommand, options: DecideOptions): Promise<Decided<PaymentState>> {
    return this.decide('payment', paymentId, paymentDecider, command, options);
  }

  decideCheckout(checkoutId: string, command: CheckoutCommand, options: DecideOptions): Promise<Decided<CheckoutState>> {
    return this.decide('checkout', checkoutId, checkoutDecider, command, options);
  }

  /** The state of a stream folded up to, not including, `revision`. */
  async stateBefore(stream: string, revision: number): Promise<PaymentState | CheckoutState> {
    const aggregate: Aggregate = PAYMENT_STREAM.owns(stream) ? 'payment' : 'checkout';
    if (revision === 0) return aggregate === 'payment' ? initialPaymentState : initialCheckoutState;
    const events = await this.store.readStream(stream, { maxCount: revision });
    return fold(aggregate, events);
  }

  private async load<S extends PaymentState | CheckoutState>(aggregate: Aggregate, id: string): Promise<S> {
    // a malformed id names no stream: no payment or checkout (not_found for the caller)
    if (!(aggregate === 'payment' ? isPaymentId(id) : isCheckoutId(id))) return (aggregate === 'payment' ? initialPaymentState : initialCheckoutState) as S;
    const stream = aggregate === 'payment' ? PAYMENT_STREAM.stream(id) : CHECKOUT_STREAM.stream(id);
    try {
      return fold(aggregate, await this.store.readStream(stream)) as S;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return (aggregate === 'payment' ? initialPaymentState : initialCheckoutState) as S;
      throw error;
    }
  }

  private async decide<C, E extends PaymentEvent | CheckoutEvent, S extends PaymentState | CheckoutState>(
    aggregate: Aggregate,
    id: string,
    decider: Decider<C, E, S, DecideContext>,
    command: C,
    options: DecideOptions,
  ): Promise<Decided<S>> {
    const occurredAt = options.now.toISOString();
    const result = await this.runner.run(decider, aggregate === 'payment' ? PAYMENT_STREAM.stream(id) : CHECKOUT_STREAM.stream(id), command, {
      context: { now: options.now },
      metadata: { ...options.metadata, occurredAt },
      eventId: options.eventId,
      waitForReadModels: false,
    });
    return {
      state: result.state,
      position: result.position,
      appended: result.appended.map((a) => ({
        aggregate,
        aggregateId: id,
        stream: a.stream,
        eventId: a.eventId,
        event: a.event,
        occurredAt: typeof a.metadata.occurredAt === 'string' ? a.metadata.occurredAt : occurredAt,
        before: a.before,
        after: a.after,
        correlationId: typeof a.metadata.correlationId === 'string' ? a.metadata.correlationId : null,
      })),
    };
  }
}

/** One event applied to a payment or checkout state. */
export function evolveAggregate(aggregate: Aggregate, state: PaymentState | CheckoutState, event: PaymentEvent | CheckoutEvent): PaymentState | CheckoutState {
  return aggregate === 'payment' ? evolvePayment(state as PaymentState, event as PaymentEvent) : evolveCheckout(state as CheckoutState, event as CheckoutEvent);
}

export function fold(aggregate: Aggregate, events: readonly RecordedEvent[]): PaymentState | CheckoutState {
  let state: PaymentState | CheckoutState = aggregate === 'payment' ? initialPaymentState : initialCheckoutState;
  for (const e of events) state = evolveAggregate(aggregate, state, { type: e.type, data: e.data } as PaymentEvent | CheckoutEvent);
  return state;
}

/** The time of a recorded event: the business clock's occurredAt, else when it was stored. */
export function occurredAtOf(event: RecordedEvent): string {
  const at = event.metadata?.occurredAt;
  return typeof at === 'string' ? at : event.recordedAt.toISOString();
}
