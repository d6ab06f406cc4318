import { EventEmitter } from 'node:events';
import { Database } from '@lib/database';
import {
  AppendResult,
  BatchHandler,
  DEFAULT_BATCH_SIZE,
  DEFAULT_READ_ALL_COUNT,
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
import { LogPosition } from '../position';
import { PollingSubscription } from '../polling-subscription';
import { validateAppend } from '../validate-append';
import { ReadWindow } from './read-window';
import { RecentLog, frozen } from './recent-log';

interface EventRow {
  event_id: string;
  event_type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  stream_id: string;
  stream_revision: string;
  global_position: string;
  transaction_id: string;
  recorded_at: Date;
}

/** Cast to text for exact bigints; ORDER BY must then name es_events.* columns, not these aliases. */
const EVENT_COLUMNS = `event_id::text, event_type, data, metadata, stream_id, stream_revision::text,
  global_position::text, transaction_id::text, recorded_at`;

/** Only rows below the oldest running transaction are visible to log readers: see DESIGN.md. */
const VISIBLE = `transaction_id < pg_snapshot_xmin(pg_current_snapshot())`;

/**
 * An append is one INSERT: one round trip, atomic. The revision the new events follow (`base`)
 * comes from the expectation, and the unique (stream_id, stream_revision) index is the
 * concurrency check: of two appends at the same revision, the second waits for the first and
 * then fails with a unique violation. An exact expectation also requires that revision to
 * exist (no gaps); `any` follows the stream's current last revision.
 */
const BASE: Record<'no_stream' | 'any' | 'exact', string> = {
  no_stream: `-1::bigint`,
  any: `(SELECT coalesce(max(stream_revision), -1) FROM es_events WHERE stream_id = $1)`,
  exact: `$3::bigint`,
};

function appendStatement(mode: keyof typeof BASE): string {
  return `INSERT INTO es_events (stream_id, stream_revision, event_id, event_type, data, metadata)
    SELECT $1, ${BASE[mode]} + e.ord, (e.value->>'id')::uuid, e.value->>'type', e.value->'data', e.value->'metadata'
    FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(value, ord)
    ${mode === 'exact' ? 'WHERE EXISTS (SELECT 1 FROM es_events WHERE stream_id = $1 AND stream_revision = $3::bigint)' : ''}
    ORDER BY e.ord
    RETURNING stream_revision::text, global_position::text, transaction_id::text, recorded_at`;
}
const APPEND_SQL = {
  no_stream: appendStatement('no_stream'),
  any: appendStatement('any'),
  exact: appendStatement('exact'),
};

/** The longest an append's announcement waits for the work begun before it (see announce). */
const ANNOUNCE_WAIT_LIMIT_MS = 25;

/** A unique violation on the stream's revisions: another append got there first. */
const REVISION_TAKEN = 'es_events_stream_revision';

/**
 * The event store on SQL: PostgreSQL through a pg pool, or the embedded PGlite database
 * through the same API. Schema: eventstore/postgres.
 */
export class SqlEventStore implements EventStore {
  private readonly appended: EventEmitter;
  private readonly subscriptions = new Set<PollingSubscription>();
  /** Embedded only: the newest events this process appended, which subscriptions read from. */
  private readonly recent: RecentLog | null;
  /** PostgreSQL only: the stretch of the log this process's subscriptions read last, which they share. */
  private readonly window: ReadWindow | null;

  constructor(
    readonly db: Database,
    private readonly options: {
      pollIntervalMs?: number;
      onReadError?: (error: unknown, failures: number) => void;
      /** PostgreSQL: the longest an append's announcement waits for the work begun before it (default 25 ms; see announce). */
      announceWaitLimitMs?: number;
    } = {},
  ) {
    this.appended = appendSignal(db);
    this.appended.on('append', this.countAppend);
    this.recent = recentLog(db);
    this.window = readWindow(db);
  }

  /** Counts every local append on this database (this store's or another's): see subscriptionRead. */
  private readonly countAppend = (): void => void this.appendSeq++;

  get kind(): 'embedded' | 'postgres' {
    return this.db.kind;
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    validateAppend(stream, events, expected);
    const mode = typeof expected === 'number' ? 'exact' : expected;
    const batch = JSON.stringify(events.map((e) => ({ id: e.id, type: e.type, data: e.data ?? null, metadata: e.metadata ?? {} })));
    const params: unknown[] = mode === 'exact' ? [stream, batch, expected] : [stream, batch];
    let rows: { stream_revision: string; global_position: string; transaction_id: string; recorded_at: Date }[] = [];
    for (let attempt = 1; ; attempt++) {
      try {
        rows = (await this.db.query(APPEND_SQL[mode], params, `es_append_${mode}`)).rows as typeof rows;
        break;
      } catch (error) {
        const { code, constraint } = error as { code?: string; constraint?: string };
        if (code !== '23505') throw error;
        // `any` lost a race for the next revision to another append: take the new last one
        if (mode === 'any' && constraint === REVISION_TAKEN && attempt < 20 && !(await this.anyIdStored(events))) continue;
        break; // an id is taken (a retry?) or the revision is: find out which below
      }
    }
    if (rows.length === 0) return this.resolveRejectedAppend(stream, events, expected);
    const last = rows.reduce((a, b) => (BigInt(a.global_position) > BigInt(b.global_position) ? a : b));
    const position = positionOf(last);
    const recorded = recordedOf(stream, batch, rows);
    this.recent?.add(recorded);
    this.announce(position);
    return { nextExpectedRevision: Number(last.stream_revision), position, recorded };
  }

  /**
   * Wakes this process's subscriptions for an append. On PostgreSQL only once the statements and
   * transactions begun before it have ended (bounded): until then they may hold it below the
   * visibility horizon, and a subscription woken at once would read nothing and look again.
   */
  private announce(position: LogPosition): void {
    if (!this.db.earlierWorkDone) return void this.appended.emit('append', position);
    void this.db.earlierWorkDone(this.options.announceWaitLimitMs ?? ANNOUNCE_WAIT_LIMIT_MS).then(() => this.appended.emit('append', position));
  }

  /** The append wrote nothing: either it was already applied (a retry) or the revision was stale. */
  private async resolveRejectedAppend(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const ids = events.map((e) => e.id.toLowerCase());
    const { rows } = await this.db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM es_events WHERE event_id = ANY($1::uuid[]) ORDER BY es_events.global_position`,
      [ids],
    );
    if (rows.length === events.length && rows.every((r) => r.stream_id === stream)) {
      const last = rows[rows.length - 1];
      return {
        nextExpectedRevision: Number(last.stream_revision),
        position: positionOf(last),
      };
    }
    if (rows.length > 0) throw new DuplicateEventIdError(stream, rows.map((r) => r.event_id));
    const current = await this.lastRevision(stream);
    throw new ConcurrencyError(stream, expected, current ?? 'no_stream');
  }

  private async anyIdStored(events: NewEvent[]): Promise<boolean> {
    const { rows } = await this.db.query(`SELECT 1 FROM es_events WHERE event_id = ANY($1::uuid[]) LIMIT 1`, [events.map((e) => e.id)]);
    return rows.length > 0;
  }

  private async lastRevision(stream: string): Promise<number | null> {
    const { rows } = await this.db.query<{ revision: string | null }>(
      `SELECT max(stream_revision)::text AS revision FROM es_events WHERE stream_id = $1`,
      [stream],
    );
    return rows[0]?.revision == null ? null : Number(rows[0].revision);
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    const limit = options.maxCount ?? null;
    const kept = this.recent?.stream(stream);
    if (kept) {
      const chosen = backwards ? kept.filter((e) => e.revision <= from).reverse() : kept.filter((e) => e.revision >= from);
      return limit === null ? chosen : chosen.slice(0, limit);
    }
    const { rows } = await this.db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM es_events
       WHERE stream_id = $1 AND stream_revision ${backwards ? '<=' : '>='} $2
       ORDER BY es_events.stream_revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
      [stream, from, limit],
    );
    if (rows.length === 0) {
      // a read that would have met revision 0 and found nothing proves the stream absent; any other asks
      const wholeStream = (limit === null || limit > 0) && (backwards ? from >= 0 : from === 0);
      if (wholeStream || (await this.lastRevision(stream)) === null) throw new StreamNotFoundError(stream);
    }
    return rows.map(toRecordedEvent);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? { commit: 0n, prepare: 0n };
    return (await this.readRows(after, options.maxCount ?? DEFAULT_READ_ALL_COUNT)).map(toRecordedEvent);
  }

  private async readRows(after: LogPosition, maxCount: number): Promise<EventRow[]> {
    const { rows } = await this.db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM es_events
       WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) AND ${VISIBLE}
       ORDER BY es_events.transaction_id, es_events.global_position LIMIT $3`,
      [after.commit.toString(), after.prepare.toString(), maxCount],
      'es_read_all',
    );
    return rows;
  }

  /**
   * The subscriptions' reads of the log, by position: every subscription of one process (the
   * projections, the reactors, the webhook outbox) wakes on the same local append and asks for the
   * page after the same position; they share one query (a smaller page takes the first rows of a
   * larger one). A read is joined only if it started after the latest local append, so a joiner
   * never gets a page that misses what woke it; a short page is harmless to a subscription, which
   * simply reads again. Before the database, the embedded store's recent log or PostgreSQL's read
   * window answer a position they hold. Direct readAll calls never share: they get a fresh read.
   */
  private readonly readsInFlight = new Map<string, { appendSeq: number; maxCount: number; events: Promise<RecordedEvent[]> }>();
  private appendSeq = 0;

  private async subscriptionRead(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? DEFAULT_READ_ALL_COUNT;
    const position = options.after ?? null;
    const kept = this.recent?.after(position, maxCount);
    if (kept) return kept;
    // PostgreSQL: what the window holds after the position, then the log past the window's end
    // (which may have grown since): a page as full as a read of the log alone would give
    const held = this.window?.after(position, maxCount);
    if (!held) return this.databaseRead(position, maxCount);
    if (held.length === maxCount) return held;
    return [...held, ...(await this.databaseRead(held[held.length - 1].position, maxCount - held.length))];
  }

  private async databaseRead(position: LogPosition | null, maxCount: number): Promise<RecordedEvent[]> {
    const after = position ?? { commit: 0n, prepare: 0n };
    const key = `${after.commit}/${after.prepare}`;
    const inFlight = this.readsInFlight.get(key);
    if (inFlight && inFlight.appendSeq === this.appendSeq && inFlight.maxCount >= maxCount) return (await inFlight.events).slice(0, maxCount);
    const read = { appendSeq: this.appendSeq, maxCount, events: this.readRows(after, maxCount).then((rows) => this.keep(position, rows)) };
    this.readsInFlight.set(key, read);
    try {
      return (await read.events).slice(0, maxCount);
    } finally {
      if (this.readsInFlight.get(key) === read) this.readsInFlight.delete(key);
    }
  }

  /** A subscription read's rows as events; on PostgreSQL frozen and kept in the read window, which every subscription shares. */
  private keep(position: LogPosition | null, rows: EventRow[]): RecordedEvent[] {
    const events = rows.map(toRecordedEvent);
    if (!this.window) return events;
    for (const event of events) frozen(event);
    this.window.read(position, events);
    return events;
  }

  async headPosition(): Promise<LogPosition | null> {
    const { rows } = await this.db.query<{ transaction_id: string; global_position: string }>(
      `SELECT transaction_id::text, global_position::text FROM es_events WHERE ${VISIBLE}
       ORDER BY es_events.transaction_id DESC, es_events.global_position DESC LIMIT 1`,
    );
    return rows[0] ? positionOf(rows[0]) : null;
  }

  /**
   * Every committed event after the position, including those the visibility horizon still holds
   * back (a transaction of any database in the cluster that began earlier and is still open): they
   * are behind a subscriber all the same, and the count does not depend on what else is running.
   */
  async countAfter(after: LogPosition | null, cap = 1_000_000_000): Promise<number> {
    const from = after ?? { commit: 0n, prepare: 0n };
    const { rows } = await this.db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM (SELECT 1 FROM es_events
         WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) LIMIT $3) AS behind`,
      [from.commit.toString(), from.prepare.toString(), cap],
    );
    return Number(rows[0].n);
  }

  subscribe(handler: BatchHandler, options: SubscribeOptions = {}): Subscription {
    const subscription = new PollingSubscription({ readAll: (o) => this.subscriptionRead(o) }, this.appended, handler, {
      after: options.after ?? null,
      batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
      pollIntervalMs: this.options.pollIntervalMs ?? (this.kind === 'embedded' ? EMBEDDED_POLL_MS : 100),
      appendsMayLag: this.kind === 'postgres',
      gatherMs: this.kind === 'embedded' ? EMBEDDED_GATHER_MS : 0,
      onReadError: this.options.onReadError ?? warnOnce,
    });
    this.subscriptions.add(subscription);
    void subscription.done.finally(() => this.subscriptions.delete(subscription)).catch(() => undefined);
    return subscription;
  }

  /** Ends every subscription (each finishes the batch in hand), then closes the database. */
  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.appended.off('append', this.countAppend);
    await this.db.close();
  }
}

/**
 * One append signal per database object, so every store of this process on that database wakes
 * its subscriptions on any of their appends. An embedded database is owned by one process (its
 * directory lock), so every append to it is a local one and its subscriptions poll only as a
 * safety net (EMBEDDED_POLL_MS); on PostgreSQL other processes append too, so they poll every 100 ms.
 */
const appendSignals = new WeakMap<Database, EventEmitter>();
const EMBEDDED_POLL_MS = 1000;
/** See PollingOptions.gatherMs: on the embedded store a subscription reads a few ms after an append, with the appends that followed. */
const EMBEDDED_GATHER_MS = 4;

/** The embedded store's recent log, one per database (every store on it appends into it); none on PostgreSQL, where other processes append too. */
const recentLog = onePerDatabase('embedded', () => new RecentLog());
/** PostgreSQL's read window, one per database (every store of the process on it shares it); none on the embedded store, which has its recent log. */
const readWindow = onePerDatabase('postgres', () => new ReadWindow());

/** One value per database object of a kind, made on first use; null for a database of the other kind. */
function onePerDatabase<T extends object>(kind: Database['kind'], make: () => T): (db: Database) => T | null {
  const made = new WeakMap<Database, T>();
  return (db) => {
    if (db.kind !== kind) return null;
    let value = made.get(db);
    if (!value) made.set(db, (value = make()));
    return value;
  };
}

function appendSignal(db: Database): EventEmitter {
  let signal = appendSignals.get(db);
  if (!signal) {
    signal = new EventEmitter();
    signal.setMaxListeners(0);
    appendSignals.set(db, signal);
  }
  return signal;
}

/** Default: one warning on stderr when a subscription's reads start failing. */
function warnOnce(error: unknown, failures: number): void {
  if (failures === 1) process.stderr.write(`event store: subscription read failed, retrying: ${(error as Error)?.message ?? error}\n`);
}

/** Where a row stands in the log: its transaction, then its place in the table. */
function positionOf(row: Pick<EventRow, 'transaction_id' | 'global_position'>): LogPosition {
  return { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) };
}

/**
 * The events of an append as a read would give them back: data and metadata from the JSON text
 * sent (what the jsonb columns hold), revisions, positions and times from the rows it returned
 * (in revision order, which is the order of the batch).
 */
function recordedOf(stream: string, batch: string, rows: readonly Pick<EventRow, 'stream_revision' | 'global_position' | 'transaction_id' | 'recorded_at'>[]): RecordedEvent[] {
  const sent = JSON.parse(batch) as { id: string; type: string; data: unknown; metadata: Record<string, unknown> }[];
  const stored = [...rows].sort((a, b) => Number(a.stream_revision) - Number(b.stream_revision));
  return stored.map((row, i) =>
    toRecordedEvent({ ...row, event_id: sent[i].id.toLowerCase(), event_type: sent[i].type, data: sent[i].data, metadata: sent[i].metadata, stream_id: stream }),
  );
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  const { event_id: id, event_type: type, data, metadata, stream_id: stream, stream_revision, recorded_at } = row;
  return { id, type, data, metadata, stream, revision: Number(stream_revision), position: positionOf(row), recordedAt: recorded_at instanceof Date ? recorded_at : new Date(recorded_at) };
}
