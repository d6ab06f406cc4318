import { randomUUID } from 'node:crypto';
import { ConcurrencyError, EventMetadata, EventStore, LogPosition, RecordedEvent, StreamNotFoundError } from '@lib/eventstore';
import { CheckoutCommand, CheckoutState, decideCheckout, evolveCheckout, initialCheckoutState } from '../domain/checkout.decider';
import { CheckoutEvent } from '../domain/checkout.events';
import { checkoutStream, paymentStream } from '../domain/checkout-to-payment';
import { PaymentCommand, PaymentState, decidePayment, evolvePayment, initialPaymentState } from '../domain/payment.decider';
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

const MAX_ATTEMPTS = 10;

export class PaymentStreams {
  constructor(private readonly store: EventStore) {}

  async payment(paymentId: string): Promise<PaymentState> {
    return (await this.load('payment', paymentId)).state as PaymentState;
  }

  async checkout(checkoutId: string): Promise<CheckoutState> {
    return (await this.load('checkout', checkoutId)).state as CheckoutState;
  }

  decidePayment(paymentId: string, command: PaymentCommand, options: DecideOptions): Promise<Decided<PaymentState>> {
    return this.decide('payment', paymentId, command, options) as Promise<Decided<PaymentState>>;
  }

  decideCheckout(checkoutId: string, command: CheckoutCommand, options: DecideOptions): Promise<Decided<CheckoutState>> {
    return this.decide('checkout', checkoutId, command, options) as Promise<Decided<CheckoutState>>;
  }

  /** The state of a stream folded up to, not including, `revision`. */
  async stateBefore(stream: string, revision: number): Promise<PaymentState | CheckoutState> {
    const aggregate: Aggregate = stream.startsWith('payment-') ? 'payment' : 'checkout';
    if (revision === 0) return aggregate === 'payment' ? initialPaymentState : initialCheckoutState;
    const events = await this.store.readStream(stream, { maxCount: revision });
    return fold(aggregate, events);
  }

  private async load(aggregate: Aggregate, id: string): Promise<{ state: PaymentState | CheckoutState; revision: number | null; events: RecordedEvent[] }> {
    const stream = aggregate === 'payment' ? paymentStream(id) : checkoutStream(id);
    let events: RecordedEvent[];
    try {
      events = await this.store.readStream(stream);
    } catch (error) {
      if (error instanceof StreamNotFoundError) return { state: aggregate === 'payment' ? initialPaymentState : initialCheckoutState, revision: null, events: [] };
      throw error;
    }
    return { state: fold(aggregate, events), revision: events.length ? events[events.length - 1].revision : null, events };
  }

  private async decide(aggregate: Aggregate, id: string, command: PaymentCommand | CheckoutCommand, options: DecideOptions): Promise<Decided<PaymentState | CheckoutState>> {
    const stream = aggregate === 'payment' ? paymentStream(id) : checkoutStream(id);
    const ctx = { now: options.now };
    const occurredAt = options.now.toISOString();
    for (let attempt = 1; ; attempt++) {
      const { state, revision, events: recorded } = await this.load(aggregate, id);
      const events =
        aggregate === 'payment' ? decidePayment(command as PaymentCommand, state as PaymentState, ctx) : decideCheckout(command as CheckoutCommand, state as CheckoutState, ctx);
      if (events.length === 0) {
        // Nothing new: either the command changes nothing, or another settler (the worker's
        // backstop, a second firing of a timer) already appended this very decision under its
        // deterministic ids. Then answer with what it appended, so the caller settles the same
        // consequences and waits for the same positions as if it had appended them itself.
        return (options.eventId && alreadyAppended(aggregate, id, stream, recorded, options)) || { state, appended: [], position: null };
      }
      const ids = events.map((_, i) => (options.eventId ? options.eventId(i) : randomUUID()));
      const metadata: EventMetadata = { ...options.metadata, occurredAt };
      try {
        const result = await this.store.append(
          stream,
          events.map((e, i) => ({ id: ids[i], type: e.type, data: e.data, metadata })),
          revision === null ? 'no_stream' : revision,
        );
        const appended: AppendedEvent[] = [];
        let current = state;
        events.forEach((event, i) => {
          const before = current;
          current = evolveAggregate(aggregate, current, event);
          appended.push({
            aggregate,
            aggregateId: id,
            stream,
            eventId: ids[i],
            event,
            occurredAt,
            before,
            after: current,
            correlationId: (options.metadata.correlationId as string | undefined) ?? null,
          });
        });
        return { state: current, appended, position: result.position };
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < MAX_ATTEMPTS) continue;
        throw error;
      }
    }
  }
}

/**
 * The events a decision with deterministic ids (`options.eventId`) appended earlier, found by
 * those ids in the stream (they are consecutive: one append), with the states around each.
 */
function alreadyAppended(aggregate: Aggregate, id: string, stream: string, recorded: readonly RecordedEvent[], options: DecideOptions): Decided<PaymentState | CheckoutState> | null {
  const first = recorded.findIndex((e) => e.id === options.eventId!(0));
  if (first < 0) return null;
  let current = fold(aggregate, recorded.slice(0, first));
  const appended: AppendedEvent[] = [];
  for (let i = 0; first + i < recorded.length && recorded[first + i].id === options.eventId!(i); i++) {
    const e = recorded[first + i];
    const event = { type: e.type, data: e.data } as PaymentEvent | CheckoutEvent;
    const before = current;
    current = evolveAggregate(aggregate, current, event);
    appended.push({
      aggregate,
      aggregateId: id,
      stream,
      eventId: e.id,
      event,
      occurredAt: occurredAtOf(e),
      before,
      after: current,
      correlationId: typeof e.metadata?.correlationId === 'string' ? e.metadata.correlationId : null,
    });
  }
  return { state: fold(aggregate, recorded), appended, position: recorded[first + appended.length - 1].position };
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
