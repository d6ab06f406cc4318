import { Database, Sql, camelized, dateOrNull } from '@lib/database';
import { SystemClock, TimeSource, wallTime } from './clock';

export type TimerStatus = 'scheduled' | 'fired' | 'canceled' | 'failed';

export interface ScheduleTimer {
  /** Chosen by the caller and deterministic (e.g. `quote_expiry:<quote id>`): scheduling twice keeps one row. */
  id: string;
  businessId: string;
  kind: string;
  /** What the timer is about (a payment, a quote, a webhook delivery id). */
  subject: string;
  payload?: Record<string, unknown>;
  /** In the business's own time (see Clock.now(businessId)). */
  dueAt: Date;
}

/** A timer as stored. */
export interface Timer {
  id: string;
  businessId: string;
  kind: string;
  subject: string;
  payload: Record<string, unknown>;
  dueAt: Date;
  status: TimerStatus;
  /** Claims so far, this one included for a claimed timer. */
  attempts: number;
  lastError: string | null;
  lockedUntil: Date | null;
  firedAt: Date | null;
  createdAt: Date;
}

interface TimerRow {
  id: string;
  business_id: string;
  kind: string;
  subject: string;
  payload: Record<string, unknown> | null;
  due_at: Date;
  status: TimerStatus;
  attempts: number;
  last_error: string | null;
  locked_until: Date | null;
  fired_at: Date | null;
  created_at: Date;
}

const COLUMNS = `id, business_id, kind, subject, payload, due_at, status, attempts, last_error, locked_until, fired_at, created_at`;

/** COLUMNS of the table named `alias` in a statement: `t.id, t.business_id, …`. */
const columnsOf = (alias: string): string =>
  COLUMNS.split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');

/** The end of a claim's `due` CTE over `timers t`: of the kinds $4 (null: any), oldest due first, at most $2, rows another claim locks skipped. */
const DUE_PICK = `AND ($4::text[] IS NULL OR t.kind = ANY($4::text[]))
      ORDER BY t.due_at, t.id
      LIMIT $2
      FOR UPDATE OF t SKIP LOCKED`;

/** The claim of the rows a CTE `due` picked: each leased for $3 ms from $1 and its attempts counted, returned. */
const LEASE_DUE = `UPDATE timers
       SET locked_until = $1::timestamptz + $3::float8 * interval '1 millisecond',
           attempts = timers.attempts + 1
      FROM due
     WHERE timers.id = due.id
       AND timers.status = 'scheduled'
    RETURNING ${columnsOf('timers')}`;

/**
 * A claim: the CTE `due` picks the rows ($1 wall time, $2 limit, $4 kinds or null), then each is
 * leased for $3 ms and its attempts counted. `before` adds CTEs that run in the same statement.
 */
function claimStatement(due: string, before = ''): string {
  return `WITH ${before}due AS (${due}
        AND (t.locked_until IS NULL OR t.locked_until <= $1::timestamptz)
        ${DUE_PICK}
    )
    ${LEASE_DUE}`;
}

/** Every business's due timers, each by its own clock. */
const CLAIM_DUE = claimStatement(`
    SELECT t.id
      FROM timers t
      LEFT JOIN business_clocks c ON c.business_id = t.business_id
     WHERE t.status = 'scheduled'
       -- index range on (status, due_at): nothing is due beyond the largest offset
       AND t.due_at <= $1::timestamptz + (SELECT COALESCE(MAX(offset_ms), 0) FROM business_clocks)::float8 * interval '1 millisecond'
       AND t.due_at <= $1::timestamptz + COALESCE(c.offset_ms, 0)::float8 * interval '1 millisecond'`);

/** One business's ($5) due timers, through the index of its scheduled ones; $6, a timer that has fired, marked so first. */
const CLAIM_DUE_OF_BUSINESS = claimStatement(
  `
    SELECT t.id
      FROM timers t
     WHERE t.business_id = $5 AND t.status = 'scheduled'
       AND t.due_at <= $1::timestamptz + COALESCE((SELECT offset_ms FROM business_clocks WHERE business_id = $5), 0)::float8 * interval '1 millisecond'`,
  `fired AS (
      UPDATE timers SET status = 'fired', fired_at = $1, locked_until = NULL
       WHERE id = $6 AND status = 'scheduled'
    ), `,
);

/** The business's ($5) offset as an interval, for the statements of one business. */
const OFFSET_OF_BUSINESS = `COALESCE((SELECT offset_ms FROM business_clocks WHERE business_id = $5), 0)::float8 * interval '1 millisecond'`;

/**
 * One wake-up's look at a business's ($5) timers: marks fired the timers of the caller's last
 * claim that fired ($6), claims up to $2 due timers (as CLAIM_DUE_OF_BUSINESS; a timer the caller
 * claimed and did not fire, $7 with its claim's attempts $8, is claimed again although its lease
 * holds: nobody claimed it since), and lists in the same statement the business's other due
 * timers that are not failing (held by another worker's lease, or past the limit): `held`; and
 * the timers of the subjects $9 that someone other than the caller touched — fired since $11
 * without being one the caller fired ($10), or failing — `other`.
 */
const CLAIM_AND_LIST_DUE_OF_BUSINESS = `WITH fired AS (
      UPDATE timers SET status = 'fired', fired_at = $1, locked_until = NULL
       WHERE id = ANY($6::text[]) AND status = 'scheduled'
    ), due AS (
      SELECT t.id
        FROM timers t
       WHERE t.business_id = $5 AND t.status = 'scheduled'
         AND t.due_at <= $1::timestamptz + ${OFFSET_OF_BUSINESS}
         AND NOT (t.id = ANY($6::text[]))
         AND (t.locked_until IS NULL OR t.locked_until <= $1::timestamptz
              OR (t.id, t.attempts) IN (SELECT * FROM unnest($7::text[], $8::int[])))
         ${DUE_PICK}
    ), claimed AS (
      ${LEASE_DUE}
    )
    SELECT ${COLUMNS}, 'claimed' AS look FROM claimed
    UNION ALL
    SELECT ${columnsOf('t')}, 'held' AS look
      FROM timers t
     WHERE t.business_id = $5 AND t.status = 'scheduled' AND t.last_error IS NULL
       AND t.due_at <= $1::timestamptz + ${OFFSET_OF_BUSINESS}
       AND NOT (t.id = ANY($6::text[]))
       AND NOT EXISTS (SELECT 1 FROM claimed c WHERE c.id = t.id)
    UNION ALL
    SELECT ${columnsOf('t')}, 'other' AS look
      FROM timers t
     WHERE t.subject = ANY($9::text[])
       AND NOT (t.id = ANY($10::text[]))
       AND ((t.status = 'fired' AND t.fired_at >= $11::timestamptz) OR t.last_error IS NOT NULL)`;

/**
 * scheduleMany's insert for a caller that fires what comes due ($4: the kinds it handles): a new
 * row already due by its business's clock is inserted claimed (leased for $3 ms from $2, one
 * attempt) and returned, so the caller fires it without claiming it first. A row that exists
 * keeps its first version and is not returned (a claim takes it as any other).
 */
const SCHEDULE_MANY_LEASING_DUE = `INSERT INTO timers (id, business_id, kind, subject, payload, due_at, created_at, locked_until, attempts)
     SELECT r.id, r.business_id, r.kind, r.subject, r.payload, r.due_at, $2::timestamptz,
            CASE WHEN d.due THEN $2::timestamptz + $3::float8 * interval '1 millisecond' END,
            CASE WHEN d.due THEN 1 ELSE 0 END
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, business_id text, kind text, subject text, payload jsonb, due_at timestamptz)
       CROSS JOIN LATERAL (
         SELECT r.kind = ANY($4::text[])
            AND r.due_at <= $2::timestamptz + COALESCE((SELECT c.offset_ms FROM business_clocks c WHERE c.business_id = r.business_id), 0)::float8 * interval '1 millisecond' AS due
       ) d
     ON CONFLICT (id) DO NOTHING
     RETURNING ${COLUMNS}`;

/**
 * A caller that fires what comes due, handing its lease to the timer store: the timers a
 * schedule inserts already due and leased to it (`taken`), which it fires itself in due order
 * without claiming them (TimerStore.scheduleMany).
 */
export interface TimerLease {
  leaseMs: number;
  /** The kinds the caller fires; a timer of another kind is scheduled as usual. */
  kinds: readonly string[];
  /** Filled by scheduleMany: timers inserted due and leased to the caller. */
  taken: Timer[];
}

/** A due timer of a business as listed by `dueTimers` (leased: a worker holds it now). */
export interface DueTimer {
  id: string;
  kind: string;
  subject: string;
  leased: boolean;
}

export interface TimerStoreOptions {
  /** Wall time (tests inject a controllable one). Used for due checks, leases and back-off. */
  now?: TimeSource;
}

/**
 * Durable timers in SQL (`timers`, `business_clocks`; migration 003_timers.sql). The same SQL
 * runs on PostgreSQL and on the embedded database. Workers coordinate only through these rows:
 * a claim takes a lease (locked_until) with FOR UPDATE SKIP LOCKED, so any number of workers can
 * poll one database, and a claim left by a crashed worker is taken again once its lease expires.
 * Timers therefore fire AT LEAST once: handlers must be idempotent.
 */
export class TimerStore {
  readonly clock: SystemClock;
  private readonly wall: TimeSource;

  constructor(
    readonly db: Database,
    options: TimerStoreOptions = {},
  ) {
    this.wall = options.now ?? wallTime;
    this.clock = new SystemClock(db, this.wall);
  }

  /** Wall time as this store sees it. */
  wallNow(): Date {
    return this.wall();
  }

  /**
   * Schedules a timer; idempotent per id (a second call with the same id changes nothing, even
   * with another due time). Pass `sql` to schedule inside a caller's transaction. Resolves true
   * when this call created the row.
   */
  async schedule(timer: ScheduleTimer, sql: Sql = this.db): Promise<boolean> {
    if (!(timer.dueAt instanceof Date) || Number.isNaN(timer.dueAt.getTime())) throw new TypeError(`timer ${timer.id}: invalid dueAt`);
    const { rowCount } = await sql.query(
      `INSERT INTO timers (id, business_id, kind, subject, payload, due_at, created_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
       ON CONFLICT (id) DO NOTHING`,
      [timer.id, timer.businessId, timer.kind, timer.subject, JSON.stringify(timer.payload ?? {}), timer.dueAt, this.wall()],
      'timers_schedule',
    );
    return rowCount > 0;
  }

  /**
   * Schedules several timers in one statement (the timers one event sets), each idempotent per id
   * as with `schedule`: an id already stored, or repeated in `timers`, keeps its first row. The
   * statement's text is the same for any number of timers (the rows travel as one jsonb
   * parameter), so the embedded store prepares it once. Pass `sql` to schedule inside a caller's
   * transaction. Resolves how many rows this call created.
   */
  async scheduleMany(timers: readonly ScheduleTimer[], sql: Sql = this.db, lease?: TimerLease): Promise<number> {
    for (const timer of timers) if (!(timer.dueAt instanceof Date) || Number.isNaN(timer.dueAt.getTime())) throw new TypeError(`timer ${timer.id}: invalid dueAt`);
    const ids = new Set<string>();
    const firsts = timers.filter((t) => !ids.has(t.id) && ids.add(t.id));
    if (firsts.length === 0) return 0;
    if (lease !== undefined) return this.scheduleLeasingDue(firsts, sql, lease);
    if (firsts.length === 1) return (await this.schedule(firsts[0], sql)) ? 1 : 0;
    const rows = firsts.map((t) => ({ id: t.id, business_id: t.businessId, kind: t.kind, subject: t.subject, payload: t.payload ?? {}, due_at: t.dueAt.toISOString() }));
    const { rowCount } = await sql.query(
      `INSERT INTO timers (id, business_id, kind, subject, payload, due_at, created_at)
       SELECT r.id, r.business_id, r.kind, r.subject, r.payload, r.due_at, $2::timestamptz
         FROM jsonb_to_recordset($1::jsonb) AS r(id text, business_id text, kind text, subject text, payload jsonb, due_at timestamptz)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(rows), this.wall()],
      'timers_schedule_many',
    );
    return rowCount;
  }

  /** scheduleMany for a caller that fires what comes due: see SCHEDULE_MANY_LEASING_DUE. */
  private async scheduleLeasingDue(timers: readonly ScheduleTimer[], sql: Sql, lease: TimerLease): Promise<number> {
    const rows = timers.map((t) => ({ id: t.id, business_id: t.businessId, kind: t.kind, subject: t.subject, payload: t.payload ?? {}, due_at: t.dueAt.toISOString() }));
    const { rows: inserted } = await sql.query<TimerRow>(SCHEDULE_MANY_LEASING_DUE, [JSON.stringify(rows), this.wall(), lease.leaseMs, [...lease.kinds]], 'timers_schedule_leasing_due');
    for (const row of inserted) if (row.locked_until !== null) lease.taken.push(toTimer(row));
    return inserted.length;
  }

  /**
   * Cancels a scheduled timer; true when it was still scheduled. A timer already claimed by a
   * worker may still fire (its handler is running); handlers check their own state.
   */
  async cancel(id: string, sql: Sql = this.db): Promise<boolean> {
    const { rowCount } = await sql.query(
      `UPDATE timers SET status = 'canceled', locked_until = NULL WHERE id = $1 AND status = 'scheduled'`,
      [id],
      'timers_cancel',
    );
    return rowCount > 0;
  }

  async get(id: string): Promise<Timer | null> {
    const { rows } = await this.db.query<TimerRow>(`SELECT ${COLUMNS} FROM timers WHERE id = $1`, [id]);
    return rows.length ? toTimer(rows[0]) : null;
  }

  /**
   * Moves a business's test clock forward by `seconds` (never back); resolves the business's
   * new now. Every timer of that business due by then becomes claimable at once.
   */
  async advanceClock(businessId: string, seconds: number): Promise<Date> {
    return (await this.advanceClockListingDue(businessId, seconds)).now;
  }

  /**
   * advanceClock, and in the same statement the business's timers due by its clock as moved,
   * as `dueTimers` lists them (the look taken at the very moment they came due, before any
   * worker could fire one); `offsetMs`, the clock's offset after the move; `movedAt`, the wall
   * time the statement was given (taken before it was sent).
   */
  async advanceClockListingDue(businessId: string, seconds: number): Promise<{ now: Date; offsetMs: number; due: DueTimer[]; movedAt: Date }> {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError(`seconds must be a finite number >= 0, got ${seconds}`);
    const ms = Math.round(seconds * 1000);
    const movedAt = this.wall();
    const { rows } = await this.db.query<{ offset_ms: string | number | bigint; id: string | null; kind: string; subject: string; leased: boolean }>(
      `WITH c AS (
         INSERT INTO business_clocks (business_id, offset_ms) VALUES ($1, $2::bigint)
         ON CONFLICT (business_id) DO UPDATE SET offset_ms = business_clocks.offset_ms + EXCLUDED.offset_ms, updated_at = now()
         RETURNING offset_ms
       )
       SELECT c.offset_ms, t.id, t.kind, t.subject, (t.locked_until IS NOT NULL AND t.locked_until > $3::timestamptz) AS leased
         FROM c
         LEFT JOIN timers t
           ON t.business_id = $1 AND t.status = 'scheduled' AND t.last_error IS NULL
          AND t.due_at <= $3::timestamptz + c.offset_ms::float8 * interval '1 millisecond'`,
      [businessId, String(ms), movedAt],
      'timers_advance_clock_listing_due',
    );
    const offsetMs = Number(rows[0].offset_ms);
    const due = rows.filter((r) => r.id !== null).map((r) => ({ id: r.id!, kind: r.kind, subject: r.subject, leased: r.leased }));
    return { now: new Date(this.wall().getTime() + offsetMs), offsetMs, due, movedAt };
  }

  /**
   * Claims up to `limit` due timers: scheduled, due_at <= the business's own now (wall time +
   * its test clock offset), and not leased (or the lease expired). Each claim increments
   * `attempts` and leases the row for `leaseMs` of wall time. One statement, FOR UPDATE SKIP
   * LOCKED: concurrent workers never claim the same row while a lease holds. Oldest due first.
   * `kinds` restricts the claim to timers this worker can handle; `businessId` to one business's
   * timers (through the index of its scheduled ones), and then `fired` names a timer of the
   * caller's last claim that has fired: it is marked fired in the same statement (the test clock's
   * advance fires one timer at a time, and so spends one statement a timer instead of two).
   */
  async claimDue(limit: number, leaseMs: number, kinds?: readonly string[], businessId?: string, fired?: string): Promise<Timer[]> {
    const wall = this.wall();
    const { rows } =
      businessId === undefined
        ? await this.db.query<TimerRow>(CLAIM_DUE, [wall, limit, leaseMs, kinds ? [...kinds] : null], 'timers_claim_due')
        : await this.db.query<TimerRow>(CLAIM_DUE_OF_BUSINESS, [wall, limit, leaseMs, kinds ? [...kinds] : null, businessId, fired ?? null], 'timers_claim_due_of_business');
    return rows.map(toTimer).sort(dueOrder);
  }

  /**
   * One wake-up's look at a business's timers (the test clock's advance): marks `fired` (timers
   * of the caller's last claim that fired) fired, claims up to `limit` due timers of the given
   * kinds, oldest due first — `mine`, timers the caller claimed and did not fire, are claimed
   * again if nobody claimed them since (same attempts) — and lists the business's other due
   * timers that are not failing (`held`: leased by another worker, or beyond the limit), all in
   * one statement. Claims as claimDue does (lease, attempts, FOR UPDATE SKIP LOCKED). `watch`:
   * the subjects whose timers the caller fires, and the timers it fired (`firedHere`, all of them
   * so far): the statement also lists (`touchedByOthers`, their subjects) the timers of those
   * subjects someone else fired since `since` (by its wall time) or that are failing.
   */
  async claimAndListDue(
    businessId: string,
    options: {
      limit: number;
      leaseMs: number;
      kinds?: readonly string[];
      fired?: readonly string[];
      mine?: readonly Timer[];
      watch?: { subjects: Iterable<string>; firedHere: Iterable<string>; since: Date };
    },
  ): Promise<{ claimed: Timer[]; held: DueTimer[]; touchedByOthers: string[] }> {
    const wall = this.wall();
    const mine = options.mine ?? [];
    const watch = options.watch;
    const { rows } = await this.db.query<TimerRow & { look: 'claimed' | 'held' | 'other' }>(
      CLAIM_AND_LIST_DUE_OF_BUSINESS,
      [
        wall,
        options.limit,
        options.leaseMs,
        options.kinds ? [...options.kinds] : null,
        businessId,
        [...(options.fired ?? [])],
        mine.map((t) => t.id),
        mine.map((t) => t.attempts),
        watch ? [...watch.subjects] : [],
        watch ? [...watch.firedHere, ...(options.fired ?? [])] : [],
        watch?.since ?? wall,
      ],
      'timers_claim_and_list_due',
    );
    const claimed = rows
      .filter((r) => r.look === 'claimed')
      .map(({ look: _, ...row }) => toTimer(row))
      .sort(dueOrder);
    const held = rows
      .filter((r) => r.look === 'held')
      .map((r) => ({ id: r.id, kind: r.kind, subject: r.subject, leased: r.locked_until !== null && new Date(r.locked_until).getTime() > wall.getTime() }));
    const touchedByOthers = [...new Set(rows.filter((r) => r.look === 'other').map((r) => r.subject))];
    return { claimed, held, touchedByOthers };
  }

  /**
   * After a failure amid a wake-up: marks `fired` fired and gives back the leases of `unfired`
   * (timers the caller claimed and will not fire now; each only if nobody claimed it since), so
   * a worker's poll takes them at once instead of after their lease.
   */
  async releaseClaims(fired: readonly string[], unfired: readonly Timer[]): Promise<void> {
    if (fired.length === 0 && unfired.length === 0) return;
    await this.db.query(
      `WITH fired AS (
         UPDATE timers SET status = 'fired', fired_at = $1, locked_until = NULL WHERE id = ANY($2::text[]) AND status = 'scheduled'
       )
       UPDATE timers SET locked_until = NULL
        WHERE status = 'scheduled' AND (id, attempts) IN (SELECT * FROM unnest($3::text[], $4::int[]))`,
      [this.wall(), [...fired], unfired.map((t) => t.id), unfired.map((t) => t.attempts)],
      'timers_release_claims',
    );
  }

  /**
   * Timers of a business that are due by its clock, still scheduled and not failing (no error
   * recorded): claimable now, or held by a lease because a worker is firing them right now.
   */
  async dueTimers(businessId: string): Promise<DueTimer[]> {
    const wall = this.wall();
    const { rows } = await this.db.query<DueTimer>(
      `SELECT t.id, t.kind, t.subject, (t.locked_until IS NOT NULL AND t.locked_until > $2::timestamptz) AS leased
         FROM timers t
         LEFT JOIN business_clocks c ON c.business_id = t.business_id
        WHERE t.business_id = $1 AND t.status = 'scheduled' AND t.last_error IS NULL
          AND t.due_at <= $2::timestamptz + COALESCE(c.offset_ms, 0)::float8 * interval '1 millisecond'`,
      [businessId, wall],
      'timers_due_of_business',
    );
    return rows;
  }

  /**
   * Every business's timers that are due by its clock and still scheduled (fired by no worker yet,
   * or being fired now), and how long the oldest of them has been due: the backlog a stopped or
   * slow worker leaves (the metrics). Scans the scheduled rows.
   */
  async backlog(): Promise<{ due: number; oldestDueSeconds: number }> {
    const { rows } = await this.db.query<{ due: number; oldest: number | null }>(
      `SELECT count(*)::int AS due,
              EXTRACT(EPOCH FROM max($1::timestamptz + COALESCE(c.offset_ms, 0)::float8 * interval '1 millisecond' - t.due_at))::float8 AS oldest
         FROM timers t
         LEFT JOIN business_clocks c ON c.business_id = t.business_id
        WHERE t.status = 'scheduled'
          AND t.due_at <= $1::timestamptz + COALESCE(c.offset_ms, 0)::float8 * interval '1 millisecond'`,
      [this.wall()],
      'timers_backlog',
    );
    return { due: Number(rows[0]?.due ?? 0), oldestDueSeconds: Math.max(0, Number(rows[0]?.oldest ?? 0)) };
  }

  /** Marks a claimed timer fired (no-op if it is no longer scheduled); true when it changed. */
  async markFired(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE timers SET status = 'fired', fired_at = $2, locked_until = NULL WHERE id = $1 AND status = 'scheduled'`,
      [id, this.wall()],
      'timers_mark_fired',
    );
    return rowCount > 0;
  }

  /**
   * Records a handler failure. With a `retryAt` (wall time) the timer stays scheduled and is
   * held back by its lease until then (its due_at is kept); with null it is given up: 'failed'.
   * `attempt` (the claim's attempts) fences a stale worker: the update applies only if no one
   * claimed the timer since.
   */
  async markFailed(id: string, error: string, retryAt: Date | null, attempt?: number): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE timers
          SET last_error = $2,
              status = CASE WHEN $3::timestamptz IS NULL THEN 'failed' ELSE 'scheduled' END,
              locked_until = $3::timestamptz
        WHERE id = $1 AND status = 'scheduled' AND ($4::int IS NULL OR attempts = $4::int)`,
      [id, error.slice(0, 4000), retryAt, attempt ?? null],
      'timers_mark_failed',
    );
    return rowCount > 0;
  }
}

/** Oldest due first, then by id: the order timers fire in. */
export function dueOrder(a: Timer, b: Timer): number {
  return a.dueAt.getTime() - b.dueAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The row under the Timer's names, with fresh dates, the attempts as a number and `{}` for no payload. */
function toTimer(row: TimerRow): Timer {
  const t = camelized(row);
  const dates = { dueAt: new Date(t.dueAt), createdAt: new Date(t.createdAt), lockedUntil: dateOrNull(t.lockedUntil), firedAt: dateOrNull(t.firedAt) };
  return { ...t, ...dates, payload: t.payload ?? {}, attempts: Number(t.attempts) };
}
