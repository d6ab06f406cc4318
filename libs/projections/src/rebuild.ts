import { randomBytes } from 'node:crypto';
import { Database, Sql } from '@lib/database';
import { EventStore, LogPosition, comparePositions } from '@lib/eventstore';
import { CheckpointMovedError, LIVE_SCHEMA, applyBatch, ensureCheckpoint, ensureTables, handleExplained, lockCheckpoint, markRebuilt, quoteIdent, readCheckpoint } from './checkpoints';
import { Projector } from './projector';

export interface Progress {
  done: number;
  /** Events in the log when the replay started (the target; live appends may add more). */
  total: number;
  elapsedMs: number;
}

/** How a replay (rebuild or verify) reads the log and reports. */
export interface ReplayOptions {
  /** Called after each page of the log. */
  onProgress?: (progress: Progress) => void;
  /** Events per page of the log (default 1000). */
  batchSize?: number;
  /** Rebuild: the longest its swap waits for a lock before it rolls back and tries again (default 5 s). */
  swapLockTimeoutMs?: number;
}

/**
 * Rebuilds a projection from position zero without readers ever seeing it partly filled: replays
 * the log into fresh tables in a scratch schema (the projector's schema as it is now, so a fixed
 * schema applies too) up to the live checkpoint, then, in one short transaction, locks the
 * checkpoint row (a live runner's compare-and-set waits for it), catches the scratch tables up to
 * the position the live tables stand at, moves the live tables out and the scratch ones in (ALTER
 * TABLE … SET SCHEMA: indexes, constraints and owned sequences go with their tables), drops the
 * old ones and stamps the checkpoint `rebuilt_at`. The checkpoint keeps its position: the new
 * tables hold exactly the events the old ones did, so a live runner's batch waiting on the row
 * goes on into the new tables, once. Readers see the old complete tables or the new complete
 * ones. Events after that position are then applied in the live schema through the same
 * compare-and-set path as the live runner (which decides webhook deliveries there, past the
 * outbox horizon); where a live runner applies a batch first, the rebuild reads the checkpoint
 * again and goes on after it (`events` counts only the events this call applied).
 */
export async function rebuildProjection(store: EventStore, db: Database, projector: Projector, options: ReplayOptions = {}): Promise<{ events: number; position: LogPosition | null }> {
  const { onProgress = () => undefined, batchSize = 1000, swapLockTimeoutMs = SWAP_LOCK_TIMEOUT_MS } = options;
  const suffix = scratchSuffix(projector);
  const scratch = `rebuild_new_${suffix}`;
  const retired = `rebuild_old_${suffix}`;
  await ensureCheckpoint(db, projector.name);
  const total = await store.countAfter(null);
  const started = Date.now();
  let done = 0;
  const progressed = (events: number) => {
    done += events;
    onProgress({ done, total: Math.max(total, done), elapsedMs: Date.now() - started });
  };
  let from: LogPosition | null;
  try {
    await db.transaction(async (tx) => {
      await tx.query(`CREATE SCHEMA ${quoteIdent(scratch)}`);
      await ensureTables(tx, projector, scratch);
    });
    // the scratch tables' position, and how many events they hold
    let replayed: LogPosition | null = null;
    let swapped: { position: LogPosition | null } | null = null;
    for (let attempt = 1; swapped === null; attempt++) {
      if (attempt > MAX_SWAP_ATTEMPTS) throw new Error(`projection ${projector.name}: the live checkpoint kept moving ahead of the rebuild's catch-up ${MAX_SWAP_ATTEMPTS} times; nothing was swapped, try again`);
      const target = (await readCheckpoint(db, projector.name)).position;
      replayed = await replayInto(store, db, projector, scratch, replayed, target, batchSize, progressed);
      const [replayedBefore, doneBefore] = [replayed, done]; // a rolled-back swap takes its catch-up's rows with it
      swapped = await db.transaction(async (tx) => {
        // a swap that would wait long for a reader's table lock (or meet one in a deadlock) gives up and tries again
        await tx.query(`SET LOCAL lock_timeout = '${Math.max(1, Math.floor(swapLockTimeoutMs))}ms'`);
        // the live runner's compare-and-set (and another rebuild) waits for this row until commit
        const live = await lockCheckpoint(tx, projector.name);
        if (live !== null && (replayed === null || comparePositions(replayed, live) < 0) && db.kind === 'postgres') {
          // the live runner went on meanwhile: catch up under the lock (the log is read on other
          // connections; the embedded store has one, so there the loop tries again instead)
          replayed = await replayInto(store, db, projector, scratch, replayed, live, batchSize, progressed, tx);
        }
        if (!samePosition(replayed, live)) {
          if (live === null || (replayed !== null && comparePositions(replayed, live) > 0)) {
            throw new Error(`projection ${projector.name}: its checkpoint moved back during the rebuild (another rebuild?); nothing was swapped`);
          }
          return null; // behind still: replay more, then lock again
        }
        await tx.query(`CREATE SCHEMA ${quoteIdent(retired)}`);
        for (const table of projector.tables) await tx.query(`ALTER TABLE IF EXISTS ${LIVE_SCHEMA}.${quoteIdent(table)} SET SCHEMA ${quoteIdent(retired)}`);
        for (const table of projector.tables) await tx.query(`ALTER TABLE ${quoteIdent(scratch)}.${quoteIdent(table)} SET SCHEMA ${LIVE_SCHEMA}`);
        await tx.query(`DROP SCHEMA ${quoteIdent(retired)} CASCADE`);
        await markRebuilt(tx, projector.name, done);
        return { position: live };
      }).catch((error: unknown) => {
        if (!isLockConflict(error)) throw error;
        [replayed, done] = [replayedBefore, doneBefore];
        return null; // nothing swapped: replay what came meanwhile, then lock again
      });
    }
    from = swapped.position;
  } finally {
    await db.exec(`DROP SCHEMA IF EXISTS ${quoteIdent(scratch)} CASCADE; DROP SCHEMA IF EXISTS ${quoteIdent(retired)} CASCADE;`);
  }
  // the events after the swapped position: in the live schema, as the live runner applies them
  for (;;) {
    const events = await store.readAll({ after: from, maxCount: batchSize });
    if (events.length === 0) break;
    try {
      await applyBatch(db, projector, from, events);
    } catch (error) {
      if (!(error instanceof CheckpointMovedError)) throw error;
      // a live runner of this projection applied the next events first, through the same compare-and-set: go on after them
      from = (await readCheckpoint(db, projector.name)).position;
      continue;
    }
    from = events[events.length - 1].position;
    progressed(events.length);
  }
  return { events: done, position: from };
}

/** The longest the swap waits for a table or row lock before it rolls back and tries again (default). */
const SWAP_LOCK_TIMEOUT_MS = 5_000;

/** PostgreSQL's lock_not_available (55P03, the lock timeout) and deadlock_detected (40P01). */
function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '55P03' || code === '40P01';
}

/** Times the swap finds the live checkpoint ahead of the scratch tables (embedded store), or a lock taken, before giving up. */
const MAX_SWAP_ATTEMPTS = 100;

function samePosition(a: LogPosition | null, b: LogPosition | null): boolean {
  return a === null || b === null ? a === b : comparePositions(a, b) === 0;
}

function scratchSuffix(projector: Projector): string {
  return `${projector.name.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`;
}

/**
 * Replays the log after `after` up to `target` (inclusive) into the projector's tables in
 * `schema`, each page in a transaction of its own (or on `tx`); returns the last position applied.
 */
async function replayInto(
  store: EventStore,
  db: Database,
  projector: Projector,
  schema: string,
  after: LogPosition | null,
  target: LogPosition | null,
  batchSize: number,
  progressed: (events: number) => void,
  tx?: Sql,
): Promise<LogPosition | null> {
  let from = after;
  while (target !== null && (from === null || comparePositions(from, target) < 0)) {
    const page = await store.readAll({ after: from, maxCount: batchSize });
    const events = page.filter((e) => comparePositions(e.position, target) <= 0);
    if (events.length > 0) {
      const apply = async (sql: Sql) => {
        await sql.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
        await handleExplained(projector, events, sql);
        await sql.query(`SET LOCAL search_path TO ${LIVE_SCHEMA}`);
      };
      if (tx) await apply(tx);
      else await db.transaction(apply);
      from = events[events.length - 1].position;
      progressed(events.length);
    }
    if (events.length < page.length || page.length === 0) break;
  }
  return from;
}

export interface TableDifference {
  table: string;
  /** Rows in the live table that a fresh replay does not produce. */
  onlyLive: Record<string, unknown>[];
  /** Rows a fresh replay produces that the live table lacks. */
  onlyRebuilt: Record<string, unknown>[];
  /** The live table's primary key columns ([] when it has none): rows of both sides with the same key are one changed row. */
  key: string[];
  /** Set when the two tables cannot be compared (different columns). */
  error?: string;
}

export interface VerifyResult {
  projector: string;
  position: LogPosition | null;
  events: number;
  differences: TableDifference[];
}

/**
 * Verifies a projection: copies the live tables and their checkpoint in one snapshot, replays
 * the log up to that checkpoint into a scratch schema, and diffs the two row by row. The live
 * projection keeps running meanwhile; both scratch schemas are dropped afterwards.
 */
export async function verifyProjection(store: EventStore, db: Database, projector: Projector, options: ReplayOptions = {}): Promise<VerifyResult> {
  const { onProgress = () => undefined, batchSize = 1000 } = options;
  const suffix = scratchSuffix(projector);
  const liveCopy = `verify_live_${suffix}`;
  const scratch = `verify_replay_${suffix}`;
  try {
    const target = await db.transaction(async (tx) => {
      const checkpoint = await readCheckpoint(tx, projector.name);
      await ensureTables(tx, projector); // a projection that never ran has empty tables, not none
      await tx.query(`CREATE SCHEMA ${quoteIdent(liveCopy)}`);
      for (const table of projector.tables) {
        await tx.query(`CREATE TABLE ${quoteIdent(liveCopy)}.${quoteIdent(table)} AS SELECT * FROM ${LIVE_SCHEMA}.${quoteIdent(table)}`);
      }
      return checkpoint.position;
    }, 'repeatable read');

    await db.transaction(async (tx) => {
      await tx.query(`CREATE SCHEMA ${quoteIdent(scratch)}`);
      await ensureTables(tx, projector, scratch);
    });
    const total = target ? await store.countAfter(null) - (await store.countAfter(target)) : 0;
    const started = Date.now();
    let done = 0;
    await replayInto(store, db, projector, scratch, null, target, batchSize, (events) => {
      done += events;
      onProgress({ done, total: Math.max(total, done), elapsedMs: Date.now() - started });
    });

    const differences: TableDifference[] = [];
    for (const table of projector.tables) {
      const diff = await diffTables(db, `${quoteIdent(liveCopy)}.${quoteIdent(table)}`, `${quoteIdent(scratch)}.${quoteIdent(table)}`);
      if (diff.error || diff.onlyLive.length || diff.onlyRebuilt.length) differences.push({ table, key: await primaryKey(db, table), ...diff });
    }
    return { projector: projector.name, position: target, events: done, differences };
  } finally {
    await db.exec(`DROP SCHEMA IF EXISTS ${quoteIdent(liveCopy)} CASCADE; DROP SCHEMA IF EXISTS ${quoteIdent(scratch)} CASCADE;`);
  }
}

/** The primary key columns of a live table, in key order ([] when it has none). */
async function primaryKey(db: Database, table: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
     WHERE i.indrelid = to_regclass($1) AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
    [`${LIVE_SCHEMA}.${quoteIdent(table)}`],
  );
  return rows.map((r) => r.name);
}

async function diffTables(db: Database, live: string, rebuilt: string): Promise<Omit<TableDifference, 'table' | 'key'>> {
  const rowsOf = async (a: string, b: string) =>
    (await db.query<{ row: Record<string, unknown> }>(`SELECT to_jsonb(d) AS row FROM (SELECT * FROM ${a} EXCEPT ALL SELECT * FROM ${b}) AS d`)).rows.map(
      (r) => r.row,
    );
  try {
    return { onlyLive: await rowsOf(live, rebuilt), onlyRebuilt: await rowsOf(rebuilt, live) };
  } catch (error) {
    return { onlyLive: [], onlyRebuilt: [], error: `tables cannot be compared: ${(error as Error).message}` };
  }
}
