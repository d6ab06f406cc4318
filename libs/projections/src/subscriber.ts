import { Database } from '@lib/database';
import { EventStore, LogPosition, RecordedEvent, Subscription, comparePositions } from '@lib/eventstore';
import { CheckpointMovedError, ensureCheckpoint, readCheckpoints } from './checkpoints';

/** How a subscriber is doing: its checkpoint, what it has applied, how far behind the log it is. */
export interface SubscriberStatus {
  name: string;
  state: 'running' | 'retrying' | 'stopped';
  /** Position of the last event handled, null before the first. */
  position: LogPosition | null;
  /** Events handled since the last rebuild. */
  events: number;
  /** Events in the log after the checkpoint. */
  lag: number;
  updatedAt: Date | null;
  rebuiltAt: Date | null;
  lastError: string | null;
}

/** A subscriber followed from its checkpoint (see followFromCheckpoint). */
export interface FollowedSubscriber {
  readonly name: string;
  readonly state: SubscriberStatus['state'];
  readonly lastError: string | null;
  /** Position of the last batch handled in this process (null before the first). */
  readonly position: LogPosition | null;
  stop(): Promise<void>;
}

/** Several checkpointed subscribers followed on one subscription (see followCheckpoints). */
export interface FollowedGroup {
  readonly state: SubscriberStatus['state'];
  readonly lastError: string | null;
  /** The members still followed here (a member can be let go: `release`). */
  readonly names: ReadonlySet<string>;
  /** Position `name` has reached in this process: its checkpoint when followed, then each batch it took. */
  position(name: string): LogPosition | null;
  /** Stops following `name` on the group's subscription (its checkpoint stays where it is). */
  release(name: string): void;
  stop(): Promise<void>;
}

export interface FollowOptions {
  batchSize: number;
  /**
   * Handles a batch and moves the checkpoint from `from` to the batch's last position by
   * compare-and-set (throwing CheckpointMovedError when another process moved it): in the
   * same transaction as a projector's rows, or after a reactor's effects.
   */
  handle(from: LogPosition | null, events: RecordedEvent[]): Promise<void>;
  /** After each handled batch. */
  onHandled?: (events: number) => void;
  onError?: (name: string, error: unknown) => void;
}

export interface FollowGroupOptions {
  batchSize: number;
  /**
   * Handles a batch for the members: `from` holds each member's checkpoint, and `events` start
   * after the lowest of them, so a member takes only the events after its own (eventsAfter).
   * Moves every checkpoint it handled by compare-and-set, like FollowOptions.handle.
   */
  handle(from: ReadonlyMap<string, LogPosition | null>, events: RecordedEvent[]): Promise<void>;
  /**
   * After each handled batch, once `position` reports it; and with no events after the
   * checkpoints were re-read (another process may have moved them ahead).
   */
  onHandled?: (events: RecordedEvent[]) => void;
  onError?: (error: unknown) => void;
}

/** The events of a batch after `from` (all of them when `from` is null). */
export function eventsAfter(from: LogPosition | null, events: RecordedEvent[]): RecordedEvent[] {
  if (from === null) return events;
  const first = events.findIndex((e) => comparePositions(e.position, from) > 0);
  return first < 0 ? [] : first === 0 ? events : events.slice(first);
}

/**
 * The one subscription loop of every checkpointed subscriber, projector or reactor: ensure the
 * checkpoint row, subscribe after the stored position, hand each batch to `handle`; on a
 * failure, retry with backoff (250 ms · 2^n, at most 60 s) from the last finished batch; when
 * another process moved the checkpoint (a second worker, a rebuild), re-read it and follow at once.
 */
export async function followFromCheckpoint(store: EventStore, db: Database, name: string, options: FollowOptions): Promise<FollowedSubscriber> {
  const group = await followCheckpoints(store, db, [name], {
    batchSize: options.batchSize,
    handle: (from, events) => options.handle(from.get(name) ?? null, events),
    onHandled: (events) => events.length > 0 && options.onHandled?.(events.length),
    onError: (error) => options.onError?.(name, error),
  });
  return {
    name,
    get state() {
      return group.state;
    },
    get lastError() {
      return group.lastError;
    },
    get position() {
      return group.position(name);
    },
    stop: () => group.stop(),
  };
}

/**
 * followFromCheckpoint for several subscribers at once: one subscription after the lowest of
 * their checkpoints, so a batch is read once and can be handled for all of them together (the
 * projection runner applies it in one transaction). The same retries: a failure re-reads every
 * checkpoint and resumes from the lowest after a backoff; a moved checkpoint resumes at once.
 */
export async function followCheckpoints(store: EventStore, db: Database, names: readonly string[], options: FollowGroupOptions): Promise<FollowedGroup> {
  for (const name of names) await ensureCheckpoint(db, name);
  const members = new Set(names);
  const reached = new Map<string, LogPosition | null>();
  let subscription: Subscription | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let failures = 0;
  let stopped = false;
  const group = {
    state: 'running' as SubscriberStatus['state'],
    lastError: null as string | null,
    names: members as ReadonlySet<string>,
    position: (name: string): LogPosition | null => reached.get(name) ?? null,
    release: (name: string): void => void members.delete(name),
    async stop(): Promise<void> {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      group.state = 'stopped';
      await subscription?.stop();
    },
  };
  const onFailure = (error: unknown): void => {
    if (stopped) return;
    const resume = () => {
      retryTimer = null;
      follow().catch(onFailure);
    };
    if (error instanceof CheckpointMovedError) return resume();
    failures++;
    group.state = 'retrying';
    group.lastError = error instanceof Error ? error.message : String(error);
    options.onError?.(error);
    retryTimer = setTimeout(resume, Math.min(60_000, 250 * 2 ** failures));
  };
  const follow = async (): Promise<void> => {
    if (stopped || members.size === 0) return;
    const checkpoints = await readCheckpoints(db, [...members]);
    const from = new Map([...checkpoints].map(([name, c]) => [name, c.position]));
    for (const [name, position] of from) reached.set(name, position);
    options.onHandled?.([]);
    const current = store.subscribe(
      async (events) => {
        await options.handle(new Map([...from].filter(([name]) => members.has(name))), events);
        const last = events[events.length - 1].position;
        for (const [name, at] of from) if (members.has(name) && (at === null || comparePositions(last, at) > 0)) from.set(name, last);
        for (const name of members) reached.set(name, from.get(name) ?? null);
        failures = 0;
        group.state = 'running';
        group.lastError = null;
        options.onHandled?.(events);
      },
      { after: lowestPosition([...from.values()]), batchSize: options.batchSize },
    );
    subscription = current;
    current.done.catch(onFailure);
  };
  await follow();
  return group;
}

/** The lowest of some positions (null, the start of the log, when any is null). */
export function lowestPosition(positions: readonly (LogPosition | null)[]): LogPosition | null {
  let low: LogPosition | null | undefined;
  for (const p of positions) if (p === null || low === undefined || (low !== null && comparePositions(p, low) < 0)) low = p;
  return low ?? null;
}

/** A subscriber's status from its checkpoint (and, when given, its live loop in this process). */
export async function subscriberStatus(store: EventStore, db: Database, name: string, live?: Pick<FollowedSubscriber, 'state' | 'lastError'> | null, lagCap?: number): Promise<SubscriberStatus> {
  const checkpoint = (await readCheckpoints(db, [name])).get(name)!;
  return {
    name,
    state: live?.state ?? 'stopped',
    position: checkpoint.position,
    events: checkpoint.events,
    lag: await store.countAfter(checkpoint.position, lagCap),
    updatedAt: checkpoint.updatedAt,
    rebuiltAt: checkpoint.rebuiltAt,
    lastError: live?.lastError ?? null,
  };
}
