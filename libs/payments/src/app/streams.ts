import { Inject, Injectable } from '@nestjs/common';
import { Decider } from '@lib/domain';
import { CommandRunner, EVENT_STORE, EventMetadata, EventStore, LogPosition, RecordedEvent, StreamNotFoundError } from '@lib/eventstore';
import { CheckoutCommand, CheckoutState, checkoutDecider, evolveCheckout, initialCheckoutState } from '../domain/checkout.decider';
import { CheckoutEvent } from '../domain/checkout.events';
import { DecideContext } from '../domain/shared';
import { PaymentCommand, PaymentState, evolvePayment, initialPaymentState, paymentDecider } from '../domain/payment.decider';
import { PaymentEvent } from '../domain/payment.events';
import { CHECKOUT_STREAM, PAYMENT_STREAM, isCheckoutId, isPaymentId } from '../domain/stream-categories';
import { later } from './positions';

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
  /**
   * The id was just minted (create): append with no_stream without reading the stream first. A
   * stream that exists after all fails the append's check and is read and decided again.
   */
  newStream?: boolean;
}

export interface Decided<S> {
  state: S;
  appended: AppendedEvent[];
  /** Position of the last event this decision appended (or found appended under its ids); null when it changed nothing. */
  position: LogPosition | null;
  /**
   * Position of the stream's last event after the decision: `position`, or the event the state
   * was folded up to when nothing was appended. Whoever answers with this stream's object waits
   * for it, so a no-op (cancel again, a payment another replica created) reads a read model that
   * has the stream as it was decided on.
   */
  head: LogPosition | null;
}

/** A stream's state and the position of its last event (null: no stream). */
export interface Loaded<S> {
  state: S;
  head: LogPosition | null;
}

/**
 * The payment and checkout streams, run through the one CommandRunner (libs/eventstore, provided
 * by CoreModule). A use case waits for the read models itself (the runner's `waitFor`), once a
 * whole chain of reactions has settled.
 */
@Injectable()
export class PaymentStreams {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: CommandRunner,
  ) {}

  async payment(paymentId: string): Promise<PaymentState> {
    return (await this.loadPayment(paymentId)).state;
  }

  async checkout(checkoutId: string): Promise<CheckoutState> {
    return (await this.loadCheckout(checkoutId)).state;
  }

  /** The payment's state and last position; a malformed id reads as no payment. */
  loadPayment(paymentId: string): Promise<Loaded<PaymentState>> {
    return this.load('payment', paymentId) as Promise<Loaded<PaymentState>>;
  }

  /** The checkout's state and last position; a malformed id reads as no checkout. */
  loadCheckout(checkoutId: string): Promise<Loaded<CheckoutState>> {
    return this.load('checkout', checkoutId) as Promise<Loaded<CheckoutState>>;
  }

  decidePayment(paymentId: string, command: PaymentCommand, options: DecideOptions): Promise<Decided<PaymentState>> {
    return this.decide('payment', paymentId, paymentDecider, command, options);
  }

  decideCheckout(checkoutId: string, command: CheckoutCommand, options: DecideOptions): Promise<Decided<CheckoutState>> {
    return this.decide('checkout', checkoutId, checkoutDecider, command, options);
  }

  /** The position of a payment's or checkout's last event (null: no stream). */
  async head(aggregate: Aggregate, id: string): Promise<LogPosition | null> {
    if (!(aggregate === 'payment' ? isPaymentId(id) : isCheckoutId(id))) return null;
    try {
      const [event] = await this.store.readStream(streamOf(aggregate, id), { direction: 'backwards', maxCount: 1 });
      return event?.position ?? null;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
  }

  /** The state of a payment or checkout stream folded up to, not including, `revision`. */
  async stateBefore(stream: string, revision: number): Promise<PaymentState | CheckoutState> {
    const aggregate: Aggregate = PAYMENT_STREAM.owns(stream) ? 'payment' : 'checkout';
    if (revision === 0) return aggregate === 'payment' ? initialPaymentState : initialCheckoutState;
    const events = await this.store.readStream(stream, { maxCount: revision });
    return fold(aggregate, events);
  }

  /**
   * The checkout's state and the events it was folded from (none for a malformed id or a
   * checkout that does not exist): for a caller that needs what the state forgets, such as
   * how often a chain transfer was withdrawn (ChainTransfers).
   */
  async checkoutHistory(checkoutId: string): Promise<{ state: CheckoutState; events: readonly RecordedEvent[] }> {
    const events = await this.events('checkout', checkoutId);
    return { state: fold('checkout', events) as CheckoutState, events };
  }

  private async load(aggregate: Aggregate, id: string): Promise<Loaded<PaymentState | CheckoutState>> {
    const events = await this.events(aggregate, id);
    return { state: fold(aggregate, events), head: events.length > 0 ? events[events.length - 1].position : null };
  }

  /** A payment's or checkout's recorded events; none for a malformed id or a stream that does not exist. */
  private async events(aggregate: Aggregate, id: string): Promise<RecordedEvent[]> {
    if (!(aggregate === 'payment' ? isPaymentId(id) : isCheckoutId(id))) return [];
    try {
      return await this.store.readStream(streamOf(aggregate, id));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
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
    const result = await this.runner.run(decider, streamOf(aggregate, id), command, {
      context: { now: options.now },
      metadata: { ...options.metadata, occurredAt },
      eventId: options.eventId,
      newStream: options.newStream,
      waitForReadModels: false,
    });
    const last = result.recorded[result.recorded.length - 1];
    return {
      state: result.state,
      position: result.position,
      head: later(result.position, last?.position),
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

function streamOf(aggregate: Aggregate, id: string): string {
  return aggregate === 'payment' ? PAYMENT_STREAM.stream(id) : CHECKOUT_STREAM.stream(id);
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
