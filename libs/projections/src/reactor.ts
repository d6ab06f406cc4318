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
      batchSize: this.options.batchSize ?? 200,
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
