import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type AppendResult as EsdbAppendResult,
  type CurrentRevision,
  type Direction,
  type EventData,
  type JSONEventType,
  type JSONType,
  type Position,
  type ReadPosition,
  type ReadRevision,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import {
  AppendResult,
  BatchHandler,
  DEFAULT_BATCH_SIZE,
  DEFAULT_READ_ALL_COUNT,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../event-store.port';
import { ConcurrencyError, DuplicateEventIdError, StreamNotFoundError } from '../errors';
import { LogPosition, comparePositions } from '../position';
import { validateAppend } from '../validate-append';

/** Page size when walking $all backwards for the newest non-system event. */
const HEAD_PAGE_SIZE = 32;
/** How many of a stream's newest events a rejected append is compared with (see resolveRejectedAppend). */
const REJECTED_APPEND_SCAN = 1000;
/**
 * Stand-in for an event read from a stream when the server did not report its $all position:
 * servers before 22.6 only report positions on reads of $all. Sorts before every real position.
 */
const UNKNOWN_POSITION: LogPosition = { commit: -1n, prepare: -1n };

/**
 * The event store on EventStoreDB (20+, gRPC) through @eventstore/db-client.
 *
 * Mapping onto the port:
 * - streams are EventStoreDB streams, revisions are stream revisions (0-based, as ours);
 * - positions are the $all positions {commit, prepare} the server reports, ordered the same way;
 * - system streams and events (names starting with `$`) are never returned by readAll,
 *   subscribe or headPosition: the port's global log only holds the application's events;
 * - events are stored as JSON (content type application/json), metadata as JSON, `{}` when absent.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  /** Subscriptions still running, stopped by close(). */
  private readonly subscriptions = new Set<EventStoreDbSubscription>();

  constructor(private readonly client: EventStoreDBClient) {}

  /** Connects lazily: the first call opens the gRPC channel. `url` is an esdb:// connection string. */
  static connect(url: string): EventStoreDbEventStore {
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(url));
  }

  /**
   * Idempotency: EventStoreDB itself treats a retried append (the same event ids, in the same
   * order, to the same stream) as a no-op and answers with the original result, whether the
   * retry's expected revision is still the original one or is stale by now. With 'any' the
   * server only does its best (it looks the first id up in a cache of recent writes).
   * Event ids are unique per stream in EventStoreDB, not across the log: reusing an id in
   * another stream is not detected here, unlike the SQL adapter.
   */
  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    validateAppend(stream, events, expected);
    const expectedRevision: AppendExpectedRevision = expected === 'no_stream' ? NO_STREAM : expected === 'any' ? ANY : BigInt(expected);
    const eventData: EventData[] = events.map((event) =>
      jsonEvent<JSONEventType>({
        id: event.id,
        type: event.type,
        // The client serialises with JSON.stringify, which cannot encode `undefined`; store null like SQL does.
        data: (event.data ?? null) as JSONType,
        metadata: (event.metadata ?? {}) as JSONType,
      }),
    );

    let result: EsdbAppendResult;
    try {
      result = await this.client.appendToStream(stream, eventData, { expectedRevision });
    } catch (error) {
      if (error instanceof Error && isCommandError(error) && error.type === ErrorType.WRONG_EXPECTED_VERSION) {
        return this.resolveRejectedAppend(stream, events, expected, toActualRevision(error.actualVersion));
      }
      throw error;
    }
    if (!result.success) {
      // Only when the connection string sets throwOnAppendFailure=false. The client's batch-append
      // path then reports a meaningless revision, so the actual revision is not trusted here.
      return this.resolveRejectedAppend(stream, events, expected, 'unknown');
    }
    if (!result.position) {
      throw new Error(
        `EventStoreDB did not report a log position for the append to ${stream} ` +
          `(revision ${result.nextExpectedRevision}); the server may be too old or the stream deleted`,
      );
    }
    return {
      nextExpectedRevision: Number(result.nextExpectedRevision),
      position: { commit: result.position.commit, prepare: result.position.prepare },
    };
  }

  /**
   * The server refused the append for its expected revision. EventStoreDB also answers that way
   * when some (not all) ids of the batch are the ids of the newest events of the stream; like the
   * SQL adapter, tell that case apart: the whole batch already stored is the original result of a
   * retry, part of it is DuplicateEventIdError, none of it is a genuine ConcurrencyError.
   * Only the newest REJECTED_APPEND_SCAN events of the stream are compared.
   */
  private async resolveRejectedAppend(
    stream: string,
    events: NewEvent[],
    expected: ExpectedRevision,
    actual: number | 'no_stream' | 'unknown',
  ): Promise<AppendResult> {
    if (actual === 'no_stream') throw new ConcurrencyError(stream, expected, actual);
    let recent: RecordedEvent[];
    try {
      recent = await this.readStream(stream, { direction: 'backwards', maxCount: REJECTED_APPEND_SCAN });
    } catch {
      throw new ConcurrencyError(stream, expected, actual);
    }
    const wanted = new Set(events.map((e) => e.id.toLowerCase()));
    const stored = recent.filter((e) => wanted.has(e.id.toLowerCase()));
    if (stored.length === events.length) {
      const last = stored.reduce((a, b) => (a.revision > b.revision ? a : b));
      if (comparePositions(last.position, UNKNOWN_POSITION) !== 0) {
        return { nextExpectedRevision: last.revision, position: last.position };
      }
    }
    if (stored.length > 0 && stored.length < events.length) {
      throw new DuplicateEventIdError(stream, stored.map((e) => e.id));
    }
    throw new ConcurrencyError(stream, expected, actual);
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    if (options.maxCount !== undefined && options.maxCount <= 0) {
      // Nothing to return, but a missing stream must still be reported.
      await this.readStream(stream, { ...options, maxCount: 1 });
      return [];
    }
    const backwards = options.direction === 'backwards';
    const fromRevision: ReadRevision =
      options.fromRevision === undefined ? (backwards ? END : START) : BigInt(options.fromRevision);
    const read = this.client.readStream(stream, {
      direction: backwards ? BACKWARDS : FORWARDS,
      fromRevision,
      ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
    });
    read.on('error', ignore); // errors reach the loop below; never an unhandled 'error' event afterwards
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of read) {
        // Links are not resolved (resolveLinkTos is off), so `event` is always there; skip defensively.
        const event = resolved.event;
        if (!event) continue;
        out.push(toRecordedEvent(event, event.position ?? UNKNOWN_POSITION));
      }
    } catch (error) {
      // A deleted (tombstoned) stream has no events either: the port calls that "not found".
      if (error instanceof Error && isCommandError(error)) {
        if (error.type === ErrorType.STREAM_NOT_FOUND || error.type === ErrorType.STREAM_DELETED) {
          throw new StreamNotFoundError(stream);
        }
      }
      throw error;
    }
    return out;
  }

  /**
   * $all forwards after `options.after`. The client's fromPosition is inclusive, ours is exclusive,
   * so the event at `after` itself is dropped. System events are skipped, and since they may fill
   * whole pages, the log is read page by page until maxCount application events are collected or
   * the log ends: a short result therefore always means the end of the log.
   */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? DEFAULT_READ_ALL_COUNT;
    const out: RecordedEvent[] = [];
    if (limit <= 0) return out;
    let cursor: LogPosition | null = options.after ?? null;
    for (;;) {
      // +1: the first event of a page may be the cursor itself (inclusive start).
      const pageSize = limit - out.length + 1;
      const page = await this.readAllPage(FORWARDS, cursor ?? START, pageSize);
      for (const { event, position } of page.events) {
        if (cursor && comparePositions(position, cursor) <= 0) continue;
        if (isSystemEvent(event)) continue;
        out.push(toRecordedEvent(event, position));
      }
      const last = page.events.at(-1)?.position ?? null;
      if (out.length >= limit || page.seen < pageSize || last === null) break; // enough, or the end of the log
      if (cursor && comparePositions(last, cursor) <= 0) break; // no progress: never loop forever
      cursor = last;
    }
    // A page may hold one event more than needed; the caller reads it next time after our last.
    return out.slice(0, limit);
  }

  /** EventStoreDB keeps no count of $all: read forward and count, up to `cap`. */
  async countAfter(after: LogPosition | null, cap = 100_000): Promise<number> {
    let count = 0;
    let from = after;
    while (count < cap) {
      const page = await this.readAll({ after: from, maxCount: Math.min(1000, cap - count) });
      if (page.length === 0) break;
      count += page.length;
      from = page[page.length - 1].position;
    }
    return count;
  }

  /**
   * The newest application event of $all: reads backwards from the end a page at a time,
   * skipping system events (which may be the newest many: statistics, projection links).
   */
  async headPosition(): Promise<LogPosition | null> {
    let cursor: ReadPosition = END;
    for (;;) {
      let oldest: LogPosition | null = null;
      let found: LogPosition | null = null;
      const page = await this.readAllPage(BACKWARDS, cursor, HEAD_PAGE_SIZE);
      for (const { event, position } of page.events) {
        // Whether a backwards read includes the event at its start position is not documented: drop it.
        if (cursor !== END && comparePositions(position, cursor) >= 0) continue;
        oldest = position;
        if (!found && !isSystemEvent(event)) found = position;
      }
      if (found) return found;
      if (page.seen < HEAD_PAGE_SIZE || oldest === null) return null; // reached the start of the log
      cursor = oldest;
    }
  }

  /**
   * One page of $all, as readAll and headPosition walk it: `seen` counts every entry the server
   * sent (a page shorter than maxCount is the end of the log), `events` holds those that carry an
   * event, with their log positions, in the order read.
   */
  private async readAllPage(direction: Direction, fromPosition: ReadPosition, maxCount: number): Promise<AllPage> {
    const read = this.client.readAll({ direction, fromPosition, maxCount });
    read.on('error', ignore); // errors reach the loop below; never an unhandled 'error' event afterwards
    const page: AllPage = { seen: 0, events: [] };
    for await (const resolved of read) {
      page.seen++;
      const event = resolved.event;
      if (event) page.events.push({ event, position: toLogPosition(event.position) });
    }
    return page;
  }

  subscribe(handler: BatchHandler, options: SubscribeOptions = {}): Subscription {
    const subscription = new EventStoreDbSubscription(this.client, this, handler, {
      after: options.after ?? null,
      batchSize: Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE),
    });
    this.subscriptions.add(subscription);
    void subscription.done.then(
      () => this.subscriptions.delete(subscription),
      () => this.subscriptions.delete(subscription),
    );
    return subscription;
  }

  /** Stops the subscriptions still running (awaiting their current batch), then closes the channel. */
  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }
}

/** A page of $all read by readAllPage. */
interface AllPage {
  seen: number;
  events: { event: EsdbRecordedEvent; position: LogPosition }[];
}

interface SubscriptionOptions {
  after: LogPosition | null;
  batchSize: number;
}

/**
 * A catch-up subscription to $all (server-side filter: no system events), consumed with
 * `for await` so that the handler is awaited before more is read: back-pressure reaches the
 * server through the stream's buffer (highWaterMark = batchSize) and gRPC flow control.
 * A batch is what is already buffered when an event is taken, up to batchSize.
 *
 * Failures are not retried: a failing handler or a failing subscription (server gone, access
 * denied, ...) ends it, `done` rejects, and `position` is the last batch the handler finished.
 */
class EventStoreDbSubscription implements Subscription {
  private current: LogPosition | null = null;
  private readonly after: LogPosition | null;
  private readonly subscription: AllStreamSubscription;
  private stopped = false;
  private closing: Promise<void> | null = null;
  /** An event has been taken from the stream and its batch is not handled yet. */
  private busy = false;
  /** The server said 'caughtUp' (servers 23.10+); confirmed once what was buffered before it is handled. */
  private serverCaughtUp = false;
  /** Fallback for servers that never say 'caughtUp': the head of the log when the subscription started. */
  private head: LogPosition | null | undefined = undefined;
  private isCaughtUp = false;
  private markCaughtUp!: () => void;
  readonly caughtUp = new Promise<void>((resolve) => (this.markCaughtUp = resolve));
  readonly done: Promise<void>;

  constructor(
    client: EventStoreDBClient,
    store: Pick<EventStore, 'headPosition'>,
    handler: BatchHandler,
    options: SubscriptionOptions,
  ) {
    this.after = options.after;
    // The client documents fromPosition as "starts the read at the given position" without saying
    // whether that event is included; the server starts after it. Events at or before `after` are
    // dropped below either way.
    this.subscription = client.subscribeToAll(
      { fromPosition: options.after ?? START, filter: excludeSystemEvents() },
      { highWaterMark: options.batchSize },
    );
    // Errors reach the for-await loop; this keeps a late 'error' (after the loop ended) from
    // becoming an uncaught exception.
    this.subscription.on('error', ignore);
    this.subscription.on('caughtUp', () => {
      this.serverCaughtUp = true;
      // Deferred: the event may be emitted while the loop has taken an event but not yet batched it.
      setImmediate(() => this.checkCaughtUp());
    });
    store.headPosition().then(
      (head) => {
        this.head = head;
        this.checkCaughtUp();
      },
      () => undefined, // no fallback then; the server's 'caughtUp' still counts
    );
    this.done = this.run(handler, options.batchSize);
    this.done.catch(() => undefined); // callers observe it; never an unhandled rejection
  }

  get position(): LogPosition | null {
    return this.current;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.close();
    await this.done.catch(() => undefined);
  }

  private async run(handler: BatchHandler, batchSize: number): Promise<void> {
    const stream = this.subscription;
    let batch: RecordedEvent[] = [];
    try {
      for await (const resolved of stream as AsyncIterable<AllStreamResolvedEvent>) {
        if (this.stopped) break;
        this.busy = true;
        const event = resolved.event;
        if (event && !isSystemEvent(event)) {
          const position = toLogPosition(event.position);
          if (!this.after || comparePositions(position, this.after) > 0) batch.push(toRecordedEvent(event, position));
        }
        // Hand over the batch when it is full or nothing more is buffered right now.
        if (batch.length > 0 && (batch.length >= batchSize || stream.readableLength === 0)) {
          await handler(batch);
          this.current = batch[batch.length - 1].position;
          batch = [];
        }
        if (batch.length === 0) {
          this.busy = false;
          this.checkCaughtUp();
        }
        if (this.stopped) break;
      }
      if (!this.stopped) throw new Error('EventStoreDB subscription to $all ended unexpectedly');
    } catch (error) {
      // Stopping destroys the stream, which may surface as a premature-close error: not a failure.
      if (!this.stopped) throw error;
    } finally {
      await this.close();
    }
  }

  /** Resolves caughtUp once everything up to the log's end, as the server or the head read saw it, is handled. */
  private checkCaughtUp(): void {
    if (this.isCaughtUp || this.busy || this.subscription.readableLength > 0) return;
    const handledUpTo = this.current ?? this.after;
    const reachedHead =
      this.head !== undefined && (this.head === null || (handledUpTo !== null && comparePositions(handledUpTo, this.head) >= 0));
    if (this.serverCaughtUp || reachedHead) {
      this.isCaughtUp = true;
      this.markCaughtUp();
    }
  }

  /** Cancels the gRPC call and destroys the stream, once. */
  private close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.subscription.unsubscribe();
      } catch {
        // the call may never have started (connection failure): nothing to cancel
      }
      this.subscription.destroy();
    })();
    return this.closing;
  }
}

function ignore(): void {
  // intentionally empty
}

function toLogPosition(position: Position): LogPosition {
  return { commit: position.commit, prepare: position.prepare };
}

function isSystemEvent(event: EsdbRecordedEvent): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** The client's view of the stream's current revision, as our ConcurrencyError reports it. */
function toActualRevision(actual: CurrentRevision | undefined): number | 'no_stream' | 'unknown' {
  if (typeof actual === 'bigint') return actual < 0n ? 'no_stream' : Number(actual);
  if (actual === NO_STREAM) return 'no_stream';
  return 'unknown';
}

/** Metadata is stored as a JSON object; anything else (absent, binary, not an object) reads as {}. */
function toMetadata(metadata: unknown): EventMetadata {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata) || metadata instanceof Uint8Array) return {};
  return metadata as EventMetadata;
}

function toRecordedEvent(event: EsdbRecordedEvent, position: LogPosition): RecordedEvent {
  return {
    id: event.id,
    type: event.type,
    data: event.data,
    metadata: toMetadata(event.metadata),
    stream: event.streamId,
    revision: Number(event.revision),
    position,
    recordedAt: event.created,
  };
}
