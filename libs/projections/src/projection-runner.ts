import { Database } from '@lib/database';
import { EventStore, LogPosition, comparePositions } from '@lib/eventstore';
import { applyBatch, ensureTables, readCheckpoints } from './checkpoints';
import { Projector } from './projector';
import { FollowedSubscriber, SubscriberStatus, followFromCheckpoint, subscriberStatus } from './subscriber';

export type ProjectionStatus = SubscriberStatus;

/**
 * Keeps every projector up to date: one subscription each, from its stored checkpoint, on the
 * loop every checkpointed subscriber shares (followFromCheckpoint; reactors use it through
 * ReactorRunner). A failing projector retries with backoff (its checkpoint stays at the last
 * batch it finished) without holding the others back; a checkpoint moved by another process is
 * re-read and followed at once. Projectors are replayable (rebuild, verify); reactors are not.
 */
export class ProjectionRunner {
  private readonly running = new Map<string, FollowedSubscriber>();
  private readonly listeners = new Set<(projection: string, events: number) => void>();
  private stopped = false;

  constructor(
    private readonly store: EventStore,
    private readonly db: Database,
    private readonly projectors: readonly Projector[],
    private readonly options: { batchSize?: number; onError?: (name: string, error: unknown) => void } = {},
  ) {}

  /**
   * Calls `listener` after each batch a projection of this process committed (e.g. the webhook
   * dispatcher looks for the deliveries the events projection just wrote, instead of waiting for
   * its next poll). Returns the unsubscribe function. Listener errors are ignored.
   */
  onApplied(listener: (projection: string, events: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<void> {
    for (const projector of this.projectors) {
      // Two transactions, never one: a batch locks the checkpoint row and then the tables, so
      // holding a table lock (DDL) while waiting for that row could deadlock with another runner.
      await this.db.transaction((tx) => ensureTables(tx, projector));
      if (this.stopped) return;
      const followed = await followFromCheckpoint(this.store, this.db, projector.name, {
        batchSize: this.options.batchSize ?? 500,
        handle: (from, events) => applyBatch(this.db, projector, from, events),
        onHandled: (events) => this.notify(projector.name, events),
        onError: this.options.onError,
      });
      this.running.set(projector.name, followed);
    }
  }

  /**
   * Resolves true once every projector has applied the log up to `position` (read your
   * writes), false after the timeout. In a process that runs the projections it watches them
   * in memory; in an API-only process it polls their checkpoints.
   */
  async waitFor(position: LogPosition, timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const reached = (at: LogPosition | null | undefined) => Boolean(at) && comparePositions(at!, position) >= 0;
    for (;;) {
      const done =
        this.running.size > 0
          ? [...this.running.values()].every((r) => reached(r.position))
          : [...(await readCheckpoints(this.db, this.projectors.map((p) => p.name))).values()].every((c) => reached(c.position));
      if (done) return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, this.running.size > 0 ? 2 : 10));
    }
  }

  /** `lagCap` bounds the count of events behind (a health check should not count millions). */
  async status(lagCap?: number): Promise<ProjectionStatus[]> {
    return projectionStatus(this.store, this.db, this.projectors, this.running, lagCap);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const followed of this.running.values()) await followed.stop();
  }

  private notify(projection: string, events: number): void {
    for (const listener of this.listeners) {
      try {
        listener(projection, events);
      } catch {
        /* a listener's problem is not the projection's */
      }
    }
  }
}

/** Status of projectors from their checkpoints (and, when given, the live runner's state). */
export async function projectionStatus(
  store: EventStore,
  db: Database,
  projectors: readonly Projector[],
  running?: Map<string, Pick<FollowedSubscriber, 'state' | 'lastError'>>,
  lagCap?: number,
): Promise<ProjectionStatus[]> {
  const out: ProjectionStatus[] = [];
  for (const projector of projectors) out.push(await subscriberStatus(store, db, projector.name, running?.get(projector.name), lagCap));
  return out;
}
