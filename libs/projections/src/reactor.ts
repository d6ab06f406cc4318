import { Database } from '@lib/database';
import { EventStore, LogPosition, RecordedEvent, comparePositions } from '@lib/eventstore';
import { moveCheckpointTo } from './checkpoints';
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
  /**
   * Whether the reactor acts on an event (when not given: on every one). A batch with none of
   * them is not handed to `react`, and its checkpoint move is put off (ReactorRunner): most of
   * the log is nothing to most reactors, and a statement per batch per reactor is what following
   * it would otherwise cost.
   */
  wants?(event: RecordedEvent): boolean;
  react(events: RecordedEvent[]): Promise<void>;
}

/** How long a checkpoint may stay behind over batches a reactor did not want (ReactorRunner). */
export const REACTOR_IDLE_FLUSH_MS = 1000;

/**
 * Runs one reactor on the same mechanism as the projections (subscriberStatus, followFromCheckpoint):
 * from its checkpoint in projection_checkpoints, batch by batch, the checkpoint moved by
 * compare-and-set after the batch's effects, failures retried with backoff from the last
 * finished batch, a checkpoint moved by another process followed at once.
 *
 * Batches with nothing the reactor wants (Reactor.wants) move no checkpoint at once: the runner
 * keeps how far it has read (`read`, `unsaved` events past the stored checkpoint) and saves it
 * with the next batch it acts on, after REACTOR_IDLE_FLUSH_MS of such batches, before a status
 * and on stop. A crash loses at most that much reading, and a restart reads those events again
 * for nothing: the reactor's effects are idempotent, and the skipped events had none.
 */
export class ReactorRunner {
  private followed: FollowedSubscriber | null = null;
  /** The checkpoint as stored, while batches past it are read but unsaved; undefined: none unsaved. */
  private stored: LogPosition | null | undefined = undefined;
  private read: LogPosition | null = null;
  private unsaved = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  /** Checkpoint moves one at a time (a batch's, a timer's flush). */
  private moving: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: EventStore,
    private readonly db: Database,
    readonly reactor: Reactor,
    private readonly options: { batchSize?: number; onError?: (error: unknown) => void; idleFlushMs?: number } = {},
  ) {}

  /** How far this runner has read the log (null before its first batch); the stored checkpoint may be behind it. */
  get position(): LogPosition | null {
    return this.followed?.position ?? null;
  }

  async start(): Promise<void> {
    this.followed = await followFromCheckpoint(this.store, this.db, this.reactor.name, {
      batchSize: this.options.batchSize ?? this.reactor.batchSize ?? 200,
      handle: (from, events) => this.handle(from, events),
      onError: (_name, error) => this.options.onError?.(error),
    });
  }

  async stop(): Promise<void> {
    await this.followed?.stop();
    await this.flush().catch(() => undefined); // best effort: a restart reads those batches again for nothing
  }

  async status(lagCap?: number): Promise<SubscriberStatus> {
    await this.flush().catch(() => undefined);
    return subscriberStatus(this.store, this.db, this.reactor.name, this.followed, lagCap);
  }

  private async handle(from: LogPosition | null, events: RecordedEvent[]): Promise<void> {
    // the subscription started again from the stored checkpoint (a retry): what was unsaved is read again
    if (this.stored !== undefined && !samePosition(from, this.read)) this.forgetUnsaved();
    const wants = this.reactor.wants;
    if (wants && !events.some((e) => wants.call(this.reactor, e))) return this.putOff(from, events);
    await this.reactor.react(events);
    await this.save({ from, to: events[events.length - 1].position, events: events.length });
  }

  /** A batch with nothing to do: remember how far the reactor has read; save it later. */
  private putOff(from: LogPosition | null, events: RecordedEvent[]): void {
    if (this.stored === undefined) this.stored = from;
    this.read = events[events.length - 1].position;
    this.unsaved += events.length;
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      this.flush().catch(() => undefined); // another process moved it: the next batch's move finds out
    }, this.options.idleFlushMs ?? REACTOR_IDLE_FLUSH_MS);
    this.flushTimer.unref();
  }

  /** Saves what was read past the stored checkpoint (nothing when nothing is unsaved). */
  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    return this.save(null);
  }

  /**
   * Moves the checkpoint by compare-and-set from where it is stored to the end of `batch` (the
   * batch's own `from` when nothing is unsaved), or, with no batch, to where the reactor has read.
   * A failure forgets the unsaved reading: the subscription re-reads the stored checkpoint.
   */
  private save(batch: { from: LogPosition | null; to: LogPosition; events: number } | null): Promise<void> {
    const move = this.moving.then(async () => {
      const from = this.stored !== undefined ? this.stored : batch ? batch.from : undefined;
      const to = batch?.to ?? this.read;
      const events = this.unsaved + (batch?.events ?? 0);
      this.forgetUnsaved();
      if (from === undefined || to === null) return;
      await moveCheckpointTo(this.db, this.reactor.name, from, to, events);
    });
    this.moving = move.catch(() => undefined);
    return move;
  }

  private forgetUnsaved(): void {
    this.stored = undefined;
    this.unsaved = 0;
  }
}

function samePosition(a: LogPosition | null, b: LogPosition | null): boolean {
  return a === null || b === null ? a === b : comparePositions(a, b) === 0;
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
