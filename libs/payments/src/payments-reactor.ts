import { Database } from '@lib/database';
import { EventStore, LogPosition, RecordedEvent, Subscription, formatPosition } from '@lib/eventstore';
import { ensureCheckpoint, readCheckpoint } from '@lib/projections';
import { Aggregate, AppendedEvent, PaymentsApp, evolveAggregate, occurredAtOf } from './app';
import { CheckoutEvent, PaymentEvent } from './domain';

export const PAYMENTS_REACTOR = 'payments-reactor';

export interface PaymentsReactorOptions {
  /** Events younger than this are left to the request that appended them (it settles inline). */
  graceMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * The process manager's backstop in the worker (DESIGN "process managers / reactors"). Requests
 * settle their consequences inline; if a process died between an append and its reactions, this
 * subscription runs them: every payment and checkout event of the log goes through
 * `PaymentsApp.settle` once, from a checkpoint kept in projection_checkpoints. Reactions have
 * deterministic event ids and are retry-safe in their deciders, so running one the request
 * already ran appends nothing; timers are scheduled by id (one row). The checkpoint moves after
 * the batch's effects: a crash in between runs them again, harmlessly.
 */
export class PaymentsReactor {
  private subscription: Subscription | null = null;
  private stopped = false;

  constructor(
    private readonly store: EventStore,
    private readonly db: Database,
    private readonly app: PaymentsApp,
    private readonly options: PaymentsReactorOptions = {},
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await ensureCheckpoint(this.db, PAYMENTS_REACTOR);
    this.follow((await readCheckpoint(this.db, PAYMENTS_REACTOR)).position);
  }

  private follow(after: LogPosition | null): void {
    const subscription = this.store.subscribe((events) => this.handle(events), { after, batchSize: 200 });
    this.subscription = subscription;
    subscription.done.catch(async (error) => {
      if (this.stopped) return;
      this.options.onError?.(error);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (!this.stopped) this.follow(subscription.position ?? after);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.stop();
  }

  private async handle(events: RecordedEvent[]): Promise<void> {
    const mine = events.filter((e) => (e.stream.startsWith('payment-pmt_') || e.stream.startsWith('checkout-')) && !this.app.settledInThisProcess(e.id));
    if (mine.length > 0) {
      const wait = mine[mine.length - 1].recordedAt.getTime() + (this.options.graceMs ?? 1000) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      for (const event of mine) await this.app.settle([await this.toAppended(event)]);
    }
    const last = events[events.length - 1];
    await this.db.query(`UPDATE projection_checkpoints SET position = $2, events = events + $3, updated_at = now() WHERE name = $1`, [
      PAYMENTS_REACTOR,
      formatPosition(last.position),
      events.length,
    ]);
  }

  private async toAppended(recorded: RecordedEvent): Promise<AppendedEvent> {
    const before = await this.app.streams.stateBefore(recorded.stream, recorded.revision);
    const aggregate: Aggregate = recorded.stream.startsWith('payment-') ? 'payment' : 'checkout';
    const event = { type: recorded.type, data: recorded.data } as PaymentEvent | CheckoutEvent;
    const after = evolveAggregate(aggregate, before, event);
    return {
      aggregate,
      aggregateId: recorded.stream.slice(aggregate === 'payment' ? 'payment-'.length : 'checkout-'.length),
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
