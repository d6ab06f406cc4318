import { RecordedEvent } from '@lib/eventstore';
import { Reactor } from '@lib/projections';
import { Aggregate, AppendedEvent, PaymentsProcessManager, evolveAggregate, occurredAtOf } from './app';
import { CHECKOUT_STREAM, CheckoutEvent, PAYMENT_STREAM, PaymentEvent } from './domain';

export const PAYMENTS_REACTOR = 'payments-reactor';

export interface PaymentsReactorOptions {
  /** Events younger than this are left to the request that appended them (it settles inline). */
  graceMs?: number;
}

/**
 * The process manager's backstop in the worker (DESIGN "process managers / reactors"). Requests
 * settle their consequences inline; if a process died between an append and its reactions, this
 * subscription runs them: every payment and checkout event of the log goes through
 * `PaymentsProcessManager.settle` once. It is a Reactor, run by the process's ReactorHost on the
 * projections' one subscriber loop (checkpoint in projection_checkpoints, compare-and-set, retry
 * with backoff, lag in its status) and, unlike a projector, never replayed by a rebuild. Reactions have
 * deterministic event ids and are retry-safe in their deciders, so running one the request
 * already ran appends nothing; timers are scheduled by id (one row). The checkpoint moves after
 * the batch's effects: a crash in between runs them again, harmlessly.
 */
export class PaymentsReactor implements Reactor {
  readonly name = PAYMENTS_REACTOR;
  readonly batchSize = 200;

  constructor(
    private readonly processManager: PaymentsProcessManager,
    private readonly options: PaymentsReactorOptions = {},
  ) {}

  /** A payment or checkout event that no request of this process has settled. */
  wants(event: RecordedEvent): boolean {
    return (PAYMENT_STREAM.owns(event.stream) || CHECKOUT_STREAM.owns(event.stream)) && !this.processManager.settledInThisProcess(event.id);
  }

  async react(events: RecordedEvent[]): Promise<void> {
    const mine = events.filter((e) => this.wants(e));
    if (mine.length > 0) {
      const wait = mine[mine.length - 1].recordedAt.getTime() + (this.options.graceMs ?? 1000) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      for (const event of mine) await this.processManager.settle([await this.toAppended(event)]);
    }
  }

  private async toAppended(recorded: RecordedEvent): Promise<AppendedEvent> {
    const before = await this.processManager.streams.stateBefore(recorded.stream, recorded.revision);
    const aggregate: Aggregate = PAYMENT_STREAM.owns(recorded.stream) ? 'payment' : 'checkout';
    const event = { type: recorded.type, data: recorded.data } as PaymentEvent | CheckoutEvent;
    const after = evolveAggregate(aggregate, before, event);
    return {
      aggregate,
      aggregateId: (aggregate === 'payment' ? PAYMENT_STREAM : CHECKOUT_STREAM).parse(recorded.stream)!,
      stream: recorded.stream,
      eventId: recorded.id,
      event,
      occurredAt: occurredAtOf(recorded),
      before,
      after,
      correlationId: typeof recorded.metadata?.correlationId === 'string' ? recorded.metadata.correlationId : null,
    };
  }
}
