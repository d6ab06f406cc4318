import { Database } from '@lib/database';
import { EventStore, LogPosition, Subscription, comparePositions } from '@lib/eventstore';
import { CheckpointMovedError, applyBatch, ensureCheckpoint, ensureTables, readCheckpoint, readCheckpoints } from './checkpoints';
import { Projector } from './projector';

export interface ProjectionStatus {
  name: string;
  state: 'running' | 'retrying' | 'stopped';
  /** Position of the last event applied, null before the first. */
  position: LogPosition | null;
  /** Events applied since the last rebuild. */
  events: number;
  /** Events in the log after the checkpoint. */
  lag: number;
  updatedAt: Date | null;
  rebuiltAt: Date | null;
  lastError: string | null;
}

interface Running {
  projector: Projector;
  subscription: Subscription | null;
  state: ProjectionStatus['state'];
  lastError: string | null;
  failures: number;
  retryTimer: NodeJS.Timeout | null;
}

/**
 * Keeps every projector up to date: one subscription each, from its stored checkpoint. A
 * failing projector retries with backoff (its checkpoint stays at the last batch it
 * finished) without holding the others back; a checkpoint moved by another process is
 * re-read and followed at once.
 */
export class ProjectionRunner {
  private readonly running = new Map<string, Running>();
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
      await ensureCheckpoint(this.db, projector.name);
      const entry: Running = { projector, subscription: null, state: 'running', lastError: null, failures: 0, retryTimer: null };
      this.running.set(projector.name, entry);
      await this.follow(entry);
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
          ? [...this.running.values()].every((r) => reached(r.subscription?.position))
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
    for (const entry of this.running.values()) {
      if (entry.retryTimer) clearTimeout(entry.retryTimer);
      entry.state = 'stopped';
      await entry.subscription?.stop();
    }
  }

  private async follow(entry: Running): Promise<void> {
    if (this.stopped) return;
    const checkpoint = await readCheckpoint(this.db, entry.projector.name);
    let from = checkpoint.position;
    const subscription = this.store.subscribe(
      async (events) => {
        await applyBatch(this.db, entry.projector, from, events);
        from = events[events.length - 1].position;
        entry.failures = 0;
        entry.state = 'running';
        entry.lastError = null;
        for (const listener of this.listeners) {
          try {
            listener(entry.projector.name, events.length);
          } catch {
            /* a listener's problem is not the projection's */
          }
        }
      },
      { after: checkpoint.position, batchSize: this.options.batchSize ?? 500 },
    );
    entry.subscription = subscription;
    subscription.done.catch((error) => this.onFailure(entry, error));
  }

  private onFailure(entry: Running, error: unknown): void {
    if (this.stopped) return;
    const resume = () => {
      entry.retryTimer = null;
      this.follow(entry).catch((e) => this.onFailure(entry, e));
    };
    if (error instanceof CheckpointMovedError) return resume();
    entry.failures++;
    entry.state = 'retrying';
    entry.lastError = error instanceof Error ? error.message : String(error);
    this.options.onError?.(entry.projector.name, error);
    entry.retryTimer = setTimeout(resume, Math.min(60_000, 250 * 2 ** entry.failures));
  }
}

/** Status of projectors from their checkpoints (and, when given, the live runner's state). */
export async function projectionStatus(
  store: EventStore,
  db: Database,
  projectors: readonly Projector[],
  running?: Map<string, Pick<Running, 'state' | 'lastError'>>,
  lagCap?: number,
): Promise<ProjectionStatus[]> {
  const checkpoints = await readCheckpoints(db, projectors.map((p) => p.name));
  const out: ProjectionStatus[] = [];
  for (const projector of projectors) {
    const checkpoint = checkpoints.get(projector.name)!;
    const live = running?.get(projector.name);
    out.push({
      name: projector.name,
      state: live?.state ?? 'stopped',
      position: checkpoint.position,
      events: checkpoint.events,
      lag: await store.countAfter(checkpoint.position, lagCap),
      updatedAt: checkpoint.updatedAt,
      rebuiltAt: checkpoint.rebuiltAt,
      lastError: live?.lastError ?? null,
    });
  }
  return out;
}
