import { randomUUID } from 'node:crypto';
import { Database, Sql } from '@lib/database';
import { Bucket, CounterState, EMPTY_COUNTER, HitOptions, Ladder, ladderLockMs, LimitStore, nextLadderStep, ReserveResult, TakeResult } from './limit-store';

type Row = { count: number; window_ends_at: Date | string | null; locked_until: Date | string | null; expires_at?: Date | string | null };

const ms = (value: Date | string | null | undefined): number | null => (value === null || value === undefined ? null : new Date(value).getTime());
const at = (value: number | null): Date | null => (value === null ? null : new Date(value));

/** A row past its expiry is as if absent; a row whose window ended counts 0 but keeps its lock. */
function live(row: Row | undefined, now: number): CounterState {
  if (!row) return EMPTY_COUNTER;
  const expires = ms(row.expires_at);
  if (expires !== null && expires <= now) return EMPTY_COUNTER;
  const windowEndsAt = ms(row.window_ends_at);
  const lockedUntil = ms(row.locked_until);
  if (windowEndsAt !== null && windowEndsAt <= now) return { count: 0, windowEndsAt: null, lockedUntil };
  return { count: Number(row.count), windowEndsAt, lockedUntil };
}

// $1 key, $2 now, $3 end of a window starting now (null: streak), $4 keep-until (null: until cleared).
// "fresh": the row was forgotten (expired) or its window ended: the count restarts at 1.
const FORGOTTEN = `(l.expires_at IS NOT NULL AND l.expires_at <= $2)`;
const FRESH = `(${FORGOTTEN} OR (l.window_ends_at IS NOT NULL AND l.window_ends_at <= $2))`;
const NEW_WINDOW = `CASE WHEN ${FRESH} THEN $3::timestamptz ELSE l.window_ends_at END`;
const NEW_LOCK = `CASE WHEN ${FORGOTTEN} THEN NULL ELSE l.locked_until END`;
const HIT = `
INSERT INTO people_limits AS l (key, count, window_ends_at, locked_until, expires_at)
VALUES ($1, 1, $3::timestamptz, NULL, GREATEST($3::timestamptz, $4::timestamptz))
ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN ${FRESH} THEN 1 ELSE l.count + 1 END,
  window_ends_at = ${NEW_WINDOW},
  locked_until = ${NEW_LOCK},
  expires_at = CASE WHEN ${NEW_WINDOW} IS NULL AND $4::timestamptz IS NULL THEN NULL
                    ELSE GREATEST(${NEW_WINDOW}, $4::timestamptz, ${NEW_LOCK}) END
RETURNING count, window_ends_at, locked_until`;

const LOCK = `
UPDATE people_limits
   SET locked_until = GREATEST(locked_until, $2::timestamptz),
       expires_at = CASE WHEN expires_at IS NULL THEN NULL ELSE GREATEST(expires_at, $2::timestamptz) END
 WHERE key = $1 AND (expires_at IS NULL OR expires_at > $3::timestamptz)`;

/**
 * The limits in the SQL database (PostgreSQL or the embedded store): shared by every process
 * using that database. `hit` is one INSERT … ON CONFLICT DO UPDATE (the row lock serialises
 * concurrent hits, so each counts); `take` is a transaction that creates the missing rows, locks
 * all of them in key order (no deadlocks between takes) and then decides.
 */
export class SqlLimitStore implements LimitStore {
  constructor(private readonly db: Database) {}

  async hit(key: string, options: HitOptions, now: number): Promise<CounterState> {
    const windowEnd = options.windowMs === undefined ? null : now + options.windowMs;
    const keepUntil = options.keepMs === undefined ? null : now + options.keepMs;
    const { rows } = await this.db.query<Row>(HIT, [key, new Date(now), at(windowEnd), at(keepUntil)], 'limits_hit');
    return { count: Number(rows[0].count), windowEndsAt: ms(rows[0].window_ends_at), lockedUntil: ms(rows[0].locked_until) };
  }

  async lock(key: string, until: number, now: number): Promise<void> {
    await this.db.query(LOCK, [key, new Date(until), new Date(now)], 'limits_lock');
  }

  async read(key: string, now: number): Promise<CounterState> {
    const { rows } = await this.db.query<Row>(`SELECT count, window_ends_at, locked_until, expires_at FROM people_limits WHERE key = $1`, [key], 'limits_read');
    return live(rows[0], now);
  }

  async clear(key: string): Promise<void> {
    await this.db.query(`DELETE FROM people_limits WHERE key = $1`, [key], 'limits_clear');
  }

  /**
   * One transaction: the counter's row created when missing and locked (FOR UPDATE) while its
   * live slots (people_limit_holds) are counted and one is added, so concurrent reservations on
   * any number of processes are decided one after another.
   */
  reserve(key: string, ladder: Ladder, holdMs: number, now: number): Promise<ReserveResult> {
    return this.db.transaction(async (tx) => {
      const state = await lockedRow(tx, key, now);
      await tx.query(`DELETE FROM people_limit_holds WHERE key = $1 AND expires_at <= $2`, [key, new Date(now)], 'limits_holds_expire');
      const { rows } = await tx.query<{ held: number | string }>(`SELECT count(*) AS held FROM people_limit_holds WHERE key = $1`, [key], 'limits_holds_count');
      const held = Number(rows[0].held);
      if ((state.lockedUntil !== null && state.lockedUntil > now) || (ladder.refuseFrom !== undefined && state.count >= ladder.refuseFrom)) return { outcome: 'locked', state };
      if (state.count + held >= nextLadderStep(ladder, state.count)) return { outcome: 'busy', state, inFlight: held };
      const hold = randomUUID();
      await tx.query(`INSERT INTO people_limit_holds (key, hold, expires_at) VALUES ($1, $2, $3)`, [key, hold, new Date(now + holdMs)], 'limits_hold');
      return { outcome: 'reserved', hold, state };
    });
  }

  /** One transaction: the hold freed, the row locked, the failure counted and its step's lock set. */
  failed(key: string, hold: string | null, ladder: Ladder, now: number): Promise<CounterState> {
    return this.db.transaction(async (tx) => {
      if (hold !== null) await tx.query(`DELETE FROM people_limit_holds WHERE key = $1 AND hold = $2`, [key, hold], 'limits_unhold');
      const state = await lockedRow(tx, key, now);
      const count = state.count + 1;
      const lockMs = ladderLockMs(ladder, count);
      const lockedUntil = lockMs === null ? state.lockedUntil : Math.max(state.lockedUntil ?? 0, now + lockMs);
      const windowEndsAt = state.windowEndsAt;
      const expiresAt = windowEndsAt === null && ladder.keepMs === undefined ? null : Math.max(windowEndsAt ?? 0, ladder.keepMs === undefined ? 0 : now + ladder.keepMs, lockedUntil ?? 0);
      await tx.query(
        `UPDATE people_limits SET count = $2, window_ends_at = $3, locked_until = $4, expires_at = $5 WHERE key = $1`,
        [key, count, at(windowEndsAt), at(lockedUntil), at(expiresAt)],
        'limits_failed',
      );
      return { count, windowEndsAt, lockedUntil };
    });
  }

  succeeded(key: string, hold: string | null): Promise<void> {
    return this.db.transaction(async (tx) => {
      if (hold !== null) await tx.query(`DELETE FROM people_limit_holds WHERE key = $1 AND hold = $2`, [key, hold], 'limits_unhold');
      await tx.query(`DELETE FROM people_limits WHERE key = $1`, [key], 'limits_clear');
    });
  }

  async release(key: string, hold: string): Promise<void> {
    await this.db.query(`DELETE FROM people_limit_holds WHERE key = $1 AND hold = $2`, [key, hold], 'limits_unhold');
  }

  take(buckets: readonly Bucket[], now: number): Promise<TakeResult> {
    const sorted = [...buckets].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return this.db.transaction(async (tx) => {
      const states: CounterState[] = [];
      for (const bucket of sorted) states.push(await lockedRow(tx, bucket.key, now));
      let retryAt: number | null = null;
      sorted.forEach((bucket, i) => {
        if (states[i].count >= bucket.limit) retryAt = Math.max(retryAt ?? 0, states[i].windowEndsAt ?? now);
      });
      if (retryAt !== null) return { taken: false, retryAt };
      for (const [i, bucket] of sorted.entries()) {
        const windowEndsAt = states[i].windowEndsAt ?? now + bucket.windowMs;
        await tx.query(
          `UPDATE people_limits SET count = $2, window_ends_at = $3, locked_until = NULL, expires_at = $3 WHERE key = $1`,
          [bucket.key, states[i].count + 1, new Date(windowEndsAt)],
          'limits_take',
        );
      }
      return { taken: true };
    });
  }

  async giveBack(keys: readonly string[], now: number): Promise<void> {
    for (const key of keys) {
      await this.db.query(`UPDATE people_limits SET count = count - 1 WHERE key = $1 AND count > 0 AND window_ends_at IS NOT NULL AND window_ends_at > $2`, [key, new Date(now)], 'limits_give_back');
    }
  }

  /** Deletes forgotten rows (the SQL store's garbage; Redis expires its keys itself). */
  async purgeExpired(now: number): Promise<number> {
    const { rowCount } = await this.db.query(`DELETE FROM people_limits WHERE expires_at IS NOT NULL AND expires_at <= $1`, [new Date(now)]);
    await this.db.query(`DELETE FROM people_limit_holds WHERE expires_at <= $1`, [new Date(now)]);
    return rowCount;
  }

  async close(): Promise<void> {
    // the database is the caller's
  }
}

/** The bucket's row, created when missing, locked for the rest of the transaction. */
async function lockedRow(tx: Sql, key: string, now: number): Promise<CounterState> {
  await tx.query(
    `INSERT INTO people_limits (key, count, window_ends_at, locked_until, expires_at) VALUES ($1, 0, NULL, NULL, $2) ON CONFLICT (key) DO NOTHING`,
    [key, new Date(now)],
    'limits_take_row',
  );
  const { rows } = await tx.query<Row>(`SELECT count, window_ends_at, locked_until, expires_at FROM people_limits WHERE key = $1 FOR UPDATE`, [key], 'limits_take_lock');
  return live(rows[0], now);
}
