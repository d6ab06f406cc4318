import { Database } from '@lib/database';
import { EventStore, LogPosition, RecordedEvent, comparePositions } from '@lib/eventstore';
import { ChangedScopes, Checkpoint, CheckpointMovedError, ProjectorBatch, RebuildsSeen, applyBatch, applyBatches, ensureCheckpoint, ensureTables, readCheckpoints } from './checkpoints';
import { Projector } from './projector';
import { FollowedGroup, FollowedSubscriber, SubscriberStatus, eventsAfter, followCheckpoints, followFromCheckpoint, lowestPosition, subscriberStatus } from './subscriber';

export type ProjectionStatus = SubscriberStatus;

/**
 * Keeps every projector up to date on one subscription (followCheckpoints): each batch of the
 * log is read once and applied to every projector in ONE transaction (applyBatches: one
 * statement moves all their checkpoints, then each writes its rows), so a write waits for one
 * commit, not one per projector. A projector that fails there is found by applying the batch to
 * each alone; it then leaves the group and retries on its own loop with backoff (its checkpoint
 * stays at the last batch it finished) without holding the others back. A checkpoint moved by
 * another process is re-read and followed at once. Projectors are replayable (rebuild, verify);
 * reactors are not.
 */
export class ProjectionRunner {
  private group: FollowedGroup | null = null;
  /** Projectors that failed in the group, each followed alone (followFromCheckpoint). */
  private readonly alone = new Map<string, FollowedSubscriber>();
  private readonly listeners = new Set<(projection: string, events: number) => void>();
  private readonly changeListeners = new Set<(projection: string, scopes: ChangedScopes) => void>();
  private readonly waiters = new Set<() => void>();
  /**
   * Writes answered before the projections had them (noteWrite), by scope (a business id), and
   * the latest of all of them: reads in that scope wait for them first (readBarrier).
   */
  private readonly unseen = new Map<string, LogPosition>();
  private unseenAny: LogPosition | null = null;
  /** What the group's current batch applied (projection, events, scopes changed), announced once the group's positions show it. */
  private pending: [string, number, ChangedScopes][] = [];
  private stopped = false;
  /** When a rebuild last swapped each projection's tables in, as this process saw it: a batch that finds it changed announces every scope. */
  private readonly rebuilds: RebuildsSeen = new Map();

  constructor(
    private readonly store: EventStore,
    private readonly db: Database,
    private readonly projectors: readonly Projector[],
    private readonly options: {
      batchSize?: number;
      onError?: (name: string, error: unknown) => void;
      /**
       * An API-only process (never started) that has waited this long for the checkpoints to
       * reach a write applies the missing batches itself (catchUp); default 1,000 ms, null: never.
       */
      catchUpAfterMs?: number | null;
    } = {},
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

  /**
   * Calls `listener` whenever rows of a projection this process applies in its group may have
   * changed: after each batch committed here, with the scopes the projector said it changed
   * (null: it did not say), and with null for every member when the group re-reads its
   * checkpoints (another process may have committed batches: a second replica, a rebuild), or
   * when a projector leaves the group. What caches of the read models listen to
   * (ScopedReadCache); returns the unsubscribe function.
   */
  onChanged(listener: (projection: string, scopes: ChangedScopes) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /**
   * Whether every change to `projection`'s rows is announced to onChanged in this process: it
   * runs here in the group (not in an API-only process, not after it left the group to retry
   * alone, not once stopped).
   */
  announcesChanges(projection: string): boolean {
    return !this.stopped && this.group !== null && this.group.names.has(projection);
  }

  async start(): Promise<void> {
    for (const projector of this.projectors) {
      // Two transactions, never one: a batch locks the checkpoint row and then the tables, so
      // holding a table lock (DDL) while waiting for that row could deadlock with another runner.
      await this.db.transaction((tx) => ensureTables(tx, projector));
      if (this.stopped) return;
    }
    for (const [name, checkpoint] of await readCheckpoints(this.db, this.projectors.map((p) => p.name))) this.rebuilds.set(name, checkpoint.rebuiltAt?.getTime() ?? null);
    this.group = await followCheckpoints(
      this.store,
      this.db,
      this.projectors.map((p) => p.name),
      {
        batchSize: this.options.batchSize ?? 500,
        handle: (from, events) => this.applyToGroup(from, events),
        onHandled: (events) => {
          const done = this.pending;
          this.pending = [];
          // no events: the checkpoints were (re-)read, maybe moved ahead by another process
          if (events.length === 0) for (const name of this.group?.names ?? []) this.changed(name, null);
          for (const [name, count, scopes] of done) {
            this.changed(name, scopes);
            this.applied(name, count);
          }
          this.checkWaiters();
        },
        onError: (error) => this.options.onError?.([...(this.group?.names ?? [])].join(', '), error),
      },
    );
  }

  /**
   * Resolves true once every projector has applied the log up to `position` (read your
   * writes), false after the timeout. In a process that runs the projections it is told by each
   * committed batch; in an API-only process it polls their checkpoints.
   */
  async waitFor(position: LogPosition, timeoutMs = 5000): Promise<boolean> {
    const reached = (at: LogPosition | null | undefined) => Boolean(at) && comparePositions(at!, position) >= 0;
    if (!this.group) return this.pollCheckpoints(reached, timeoutMs);
    if (this.projectors.every((p) => reached(this.positionOf(p.name)))) return true;
    return new Promise<boolean>((resolve) => {
      const check = () => {
        if (!this.projectors.every((p) => reached(this.positionOf(p.name)))) return;
        finish(true);
      };
      const finish = (result: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(result);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.waiters.add(check);
    });
  }

  /**
   * Read your writes without waiting in the write: a use case that answers from its decided state
   * notes its position here instead of waiting for the projections, and every later read of the
   * same scope (the business) — or any public read — waits for it first (readBarrier). Only a
   * process that applies the projections and serves those reads itself can promise that: returns
   * false elsewhere (an API-only process), where the caller must wait (waitFor) as before.
   */
  noteWrite(scope: string, position: LogPosition): boolean {
    if (!this.group || this.stopped) return false;
    const known = this.unseen.get(scope);
    if (!known || comparePositions(position, known) > 0) this.unseen.set(scope, position);
    if (!this.unseenAny || comparePositions(position, this.unseenAny) > 0) this.unseenAny = position;
    this.forgetSeenWrites();
    return true;
  }

  /**
   * Before a read of the read models in `scope` (a business id; null: a public read, any scope):
   * waits until the projections have the writes noted for it (noteWrite), bounded like waitFor.
   * Nothing noted, or already applied: resolves at once without a statement.
   */
  /** Whether a read in `scope` has noted writes to wait for (readBarrier would wait, or check). */
  hasUnseenWrites(scope: string | null): boolean {
    return scope === null ? this.unseenAny !== null : this.unseen.has(scope);
  }

  async readBarrier(scope: string | null, timeoutMs = 5000): Promise<void> {
    const position = scope === null ? this.unseenAny : (this.unseen.get(scope) ?? null);
    if (position === null || (await this.waitFor(position, timeoutMs))) return;
    // a projection that cannot keep up (a failing projector retrying): the read goes on after
    // the timeout, and the write is forgotten so that the next reads do not each wait for it again
    if (scope !== null && this.unseen.get(scope) === position) this.unseen.delete(scope);
    if (scope === null && this.unseenAny === position) this.unseenAny = null;
  }

  /** `lagCap` bounds the count of events behind (a health check should not count millions). */
  async status(lagCap?: number): Promise<ProjectionStatus[]> {
    const live = new Map(this.projectors.flatMap((p) => (this.liveOf(p.name) ? [[p.name, this.liveOf(p.name)!] as const] : [])));
    return projectionStatus(this.store, this.db, this.projectors, live, lagCap);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.group?.stop();
    for (const followed of this.alone.values()) await followed.stop();
  }

  /** One batch for every projector of the group in one transaction; on a failure, each alone to find who failed. */
  private async applyToGroup(from: ReadonlyMap<string, LogPosition | null>, events: RecordedEvent[]): Promise<void> {
    const batches: ProjectorBatch[] = this.projectors
      .filter((p) => from.has(p.name))
      .map((projector) => ({ projector, from: from.get(projector.name) ?? null, events: eventsAfter(from.get(projector.name) ?? null, events) }))
      .filter((b) => b.events.length > 0);
    this.pending = [];
    if (batches.length === 0) return;
    try {
      const scopes = await applyBatches(this.db, batches, this.rebuilds);
      this.pending = batches.map((b) => [b.projector.name, b.events.length, scopes.get(b.projector.name) ?? null]);
      return;
    } catch (error) {
      if (error instanceof CheckpointMovedError || batches.length === 1) throw error;
    }
    const failed: [ProjectorBatch, unknown][] = [];
    for (const b of batches) {
      try {
        const scopes = await applyBatch(this.db, b.projector, b.from, b.events, this.rebuilds);
        this.pending.push([b.projector.name, b.events.length, scopes]);
      } catch (error) {
        if (error instanceof CheckpointMovedError) throw error;
        failed.push([b, error]);
      }
    }
    if (failed.length === batches.length) throw failed[0][1]; // all of them (the database?): the group retries
    for (const [b, error] of failed) await this.followAlone(b.projector, error);
  }

  /** A projector that failed where the others did not leaves the group and retries on its own. */
  private async followAlone(projector: Projector, error: unknown): Promise<void> {
    this.group?.release(projector.name);
    this.changed(projector.name, null); // no longer announced (announcesChanges): caches of it let go
    this.options.onError?.(projector.name, error);
    if (this.stopped) return;
    const followed = await followFromCheckpoint(this.store, this.db, projector.name, {
      batchSize: this.options.batchSize ?? 500,
      handle: async (from, events) => void (await applyBatch(this.db, projector, from, events)),
      onHandled: (events) => {
        this.applied(projector.name, events);
        this.checkWaiters();
      },
      onError: this.options.onError,
    });
    this.alone.set(projector.name, followed);
  }

  private positionOf(name: string): LogPosition | null {
    return this.alone.get(name)?.position ?? this.group?.position(name) ?? null;
  }

  private liveOf(name: string): Pick<FollowedSubscriber, 'state' | 'lastError'> | null {
    return this.alone.get(name) ?? this.group ?? null;
  }

  /**
   * An API-only process waits on the checkpoints another process moves: one shared loop reads
   * them (every 5 ms while anyone waits) and answers every waiter, instead of a query per waiter.
   */
  private async pollCheckpoints(reached: (at: LogPosition | null) => boolean, timeoutMs: number): Promise<boolean> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    const catchUpAfter = this.options.catchUpAfterMs === undefined ? 1000 : this.options.catchUpAfterMs;
    for (;;) {
      const checkpoints = await this.sharedCheckpointRead();
      if ([...checkpoints.values()].every((c) => reached(c.position))) return true;
      if (Date.now() > deadline) return false;
      if (catchUpAfter !== null && Date.now() - started >= catchUpAfter && Date.now() >= this.catchUpPausedUntil && !this.stopped) await this.sharedCatchUp(reached, deadline);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  private catchingUp: Promise<void> | null = null;
  private tablesEnsured = false;
  /** After a catch-up failed (a batch that fails, the database): no other attempt before this time. */
  private catchUpPausedUntil = 0;

  /** One catch-up at a time in this process, shared by every waiter that asks meanwhile. */
  private sharedCatchUp(reached: (at: LogPosition | null) => boolean, deadline: number): Promise<void> {
    if (!this.catchingUp) {
      this.catchingUp = this.catchUp(reached, deadline)
        .catch((error: unknown) => {
          this.catchUpPausedUntil = Date.now() + 1000;
          this.options.onError?.(`${this.projectors.map((p) => p.name).join(', ')} (catch-up)`, error);
        })
        .finally(() => (this.catchingUp = null));
    }
    return this.catchingUp;
  }

  /**
   * Read your writes with no worker running (or one far behind): an API-only process that has
   * waited catchUpAfterMs applies the batches its write needs itself, on the same compare-and-set
   * of the checkpoints as every runner (applyBatches) — whoever moves a checkpoint first wins,
   * the other re-reads, so two processes never both apply a batch. Stops at the deadline, at a
   * batch that fails (the waiter times out as before; the worker retries it), or when the log
   * shows nothing more yet (PostgreSQL's visibility horizon: the poll goes on).
   */
  private async catchUp(reached: (at: LogPosition | null) => boolean, deadline: number): Promise<void> {
    const names = this.projectors.map((p) => p.name);
    if (!this.tablesEnsured) {
      for (const projector of this.projectors) {
        await this.db.transaction((tx) => ensureTables(tx, projector));
        await ensureCheckpoint(this.db, projector.name);
      }
      this.tablesEnsured = true;
    }
    while (Date.now() <= deadline && !this.stopped) {
      const checkpoints = await readCheckpoints(this.db, names);
      const behind = this.projectors.filter((p) => !reached(checkpoints.get(p.name)!.position));
      if (behind.length === 0) return;
      const from = behind.map((p) => checkpoints.get(p.name)!.position);
      const events = await this.store.readAll({ after: lowestPosition(from), maxCount: this.options.batchSize ?? 500 });
      if (events.length === 0) return;
      const batches = behind.map((projector, i) => ({ projector, from: from[i], events: eventsAfter(from[i], events) }));
      try {
        await applyBatches(this.db, batches);
      } catch (error) {
        if (!(error instanceof CheckpointMovedError)) throw error;
        // another process (the worker, another replica) applied it first: read again
      }
    }
  }

  private checkpointRead: Promise<Map<string, Checkpoint>> | null = null;

  /** One read of the checkpoints at a time, shared by every waiter that asks meanwhile. */
  private sharedCheckpointRead(): Promise<Map<string, Checkpoint>> {
    if (!this.checkpointRead) {
      this.checkpointRead = readCheckpoints(this.db, this.projectors.map((p) => p.name)).finally(() => (this.checkpointRead = null));
    }
    return this.checkpointRead;
  }

  private changed(projection: string, scopes: ChangedScopes): void {
    for (const listener of this.changeListeners) {
      try {
        listener(projection, scopes);
      } catch {
        /* a listener's problem is not the projection's */
      }
    }
  }

  private applied(projection: string, events: number): void {
    for (const listener of this.listeners) {
      try {
        listener(projection, events);
      } catch {
        /* a listener's problem is not the projection's */
      }
    }
  }

  private checkWaiters(): void {
    for (const check of [...this.waiters]) check();
    this.forgetSeenWrites();
  }

  /** Drops the noted writes every projector has applied (their reads no longer wait). */
  private forgetSeenWrites(): void {
    if (this.unseenAny === null) return;
    let low: LogPosition | null = null;
    for (const p of this.projectors) {
      const at = this.positionOf(p.name);
      if (at === null) return;
      if (low === null || comparePositions(at, low) < 0) low = at;
    }
    if (low === null) return;
    for (const [scope, position] of this.unseen) if (comparePositions(position, low) <= 0) this.unseen.delete(scope);
    if (comparePositions(this.unseenAny, low) <= 0) this.unseenAny = null;
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
