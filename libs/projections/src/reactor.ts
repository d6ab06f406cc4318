import { Database } from '@lib/database';
import { EventStore, RecordedEvent } from '@lib/eventstore';
import { moveCheckpoint } from './checkpoints';
import { FollowedSubscriber, SubscriberStatus, followFromCheckpoint, subscriberStatus } from './subscriber';

/**
 * A reactor: a subscriber whose effects are commands (appends to other streams, timers), such
 * as a process manager's backstop. Unlike a projector it is NOT replayable: its effects are not
 * rows it owns, so a rebuild never resets or re-runs it, and `projections rebuild` does not know
 * it. Effects must be idempotent (deterministic event ids, timers by id): the checkpoint moves
 * after a batch's effects, so a crash in between runs them again, harmlessly.
 */
export interface Reactor {
  readonly name: string;
  /** Events per batch (200 when not set). */
  readonly batchSize?: number;
  react(events: RecordedEvent[]): Promise<void>;
}

/**
 * Runs one reactor on the same mechanism as the projections (subscriberStatus, followFromCheckpoint):
 * from its checkpoint in projection_checkpoints, batch by batch, the checkpoint moved by
 * compare-and-set after the batch's effects, failures retried with backoff from the last
 * finished batch, a checkpoint moved by another process followed at once.
 */
export class ReactorRunner {
  private followed: FollowedSubscriber | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly db: Database,
    readonly reactor: Reactor,
    private readonly options: { batchSize?: number; onError?: (error: unknown) => void } = {},
  ) {}

  async start(): Promise<void> {
    this.followed = await followFromCheckpoint(this.store, this.db, this.reactor.name, {
      batchSize: this.options.batchSize ?? this.reactor.batchSize ?? 200,
      handle: async (from, events) => {
        await this.reactor.react(events);
        await moveCheckpoint(this.db, this.reactor.name, from, events);
      },
      onError: (_name, error) => this.options.onError?.(error),
    });
  }

  async stop(): Promise<void> {
    await this.followed?.stop();
  }

  async status(lagCap?: number): Promise<SubscriberStatus> {
    return subscriberStatus(this.store, this.db, this.reactor.name, this.followed, lagCap);
  }
}

/**
 * Every reactor of a process, run by one mechanism: a capability hands its reactors to `run`
 * (at bootstrap), each then follows the log on its own ReactorRunner (own checkpoint, own
 * retries: one failing reactor holds no other back); the core stops them all on shutdown,
 * before the store closes, and `status` reports them like the projections. In a process that
 * runs no background work (the API-only role: `enabled` false) `run` starts nothing.
 */
export class ReactorHost {
  private readonly runners = new Map<string, ReactorRunner>();
  private stopped = false;

  constructor(
    private readonly store: EventStore,
    private readonly db: Database,
    private readonly options: { enabled: boolean },
  ) {}

  /** Starts following `reactor` from its checkpoint; `onError` hears each failed batch (retried with backoff). */
  async run(reactor: Reactor, onError?: (error: unknown) => void): Promise<void> {
    if (!this.options.enabled || this.stopped) return;
    if (this.runners.has(reactor.name)) throw new Error(`reactor ${reactor.name} is already running`);
    const runner = new ReactorRunner(this.store, this.db, reactor, { onError });
    this.runners.set(reactor.name, runner);
    await runner.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const runner of this.runners.values()) await runner.stop();
  }

  /** The running reactors' statuses, in the order they started. */
  async status(lagCap?: number): Promise<SubscriberStatus[]> {
    return Promise.all([...this.runners.values()].map((runner) => runner.status(lagCap)));
  }
}
