import { Database } from '@lib/database';
import { EventStore, LogPosition, RecordedEvent, Subscription } from '@lib/eventstore';
import { CheckpointMovedError, ensureCheckpoint, readCheckpoint, readCheckpoints } from './checkpoints';

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

/**
 * The one subscription loop of every checkpointed subscriber, projector or reactor: ensure the
 * checkpoint row, subscribe after the stored position, hand each batch to `handle`; on a
 * failure, retry with backoff (250 ms · 2^n, at most 60 s) from the last finished batch; when
 * another process moved the checkpoint (a second worker, a rebuild), re-read it and follow at once.
 */
export async function followFromCheckpoint(store: EventStore, db: Database, name: string, options: FollowOptions): Promise<FollowedSubscriber> {
  await ensureCheckpoint(db, name);
  let subscription: Subscription | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let failures = 0;
  let stopped = false;
  const followed = {
    name,
    state: 'running' as SubscriberStatus['state'],
    lastError: null as string | null,
    get position(): LogPosition | null {
      return subscription?.position ?? null;
    },
    async stop(): Promise<void> {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      followed.state = 'stopped';
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
    followed.state = 'retrying';
    followed.lastError = error instanceof Error ? error.message : String(error);
    options.onError?.(name, error);
    retryTimer = setTimeout(resume, Math.min(60_000, 250 * 2 ** failures));
  };
  const follow = async (): Promise<void> => {
    if (stopped) return;
    const checkpoint = await readCheckpoint(db, name);
    let from = checkpoint.position;
    const current = store.subscribe(
      async (events) => {
        await options.handle(from, events);
        from = events[events.length - 1].position;
        failures = 0;
        followed.state = 'running';
        followed.lastError = null;
        options.onHandled?.(events.length);
      },
      { after: checkpoint.position, batchSize: options.batchSize },
    );
    subscription = current;
    current.done.catch(onFailure);
  };
  await follow();
  return followed;
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
