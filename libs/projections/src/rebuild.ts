import { randomBytes } from 'node:crypto';
import { Database, Sql } from '@lib/database';
import { EventStore, LogPosition, comparePositions } from '@lib/eventstore';
import { CheckpointMovedError, LIVE_SCHEMA, applyBatch, ensureCheckpoint, ensureTables, handleExplained, quoteIdent, readCheckpoint } from './checkpoints';
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
}

/**
 * Rebuilds a projection from position zero in place: drops and recreates its tables (so a
 * fixed schema applies too) and resets its checkpoint in one transaction, then replays the
 * whole log through the same compare-and-set path as the live runner. A live runner in
 * another process notices the moved checkpoint and follows the rebuild; where it applies a batch
 * first, the rebuild reads the checkpoint again and goes on after it (`events` counts only the
 * events this call applied).
 */
export async function rebuildProjection(store: EventStore, db: Database, projector: Projector, options: ReplayOptions = {}): Promise<{ events: number; position: LogPosition | null }> {
  const { onProgress = () => undefined, batchSize = 1000 } = options;
  await db.transaction(async (tx) => {
    await ensureCheckpoint(tx, projector.name);
    await tx.query(`SELECT 1 FROM public.projection_checkpoints WHERE name = $1 FOR UPDATE`, [projector.name]);
    await dropTables(tx, projector, LIVE_SCHEMA);
    await ensureTables(tx, projector, LIVE_SCHEMA);
    await tx.query(
      `UPDATE public.projection_checkpoints SET position = 'start', events = 0, updated_at = now(), rebuilt_at = now() WHERE name = $1`,
      [projector.name],
    );
  });
  const total = await store.countAfter(null);
  const started = Date.now();
  let from: LogPosition | null = null;
  let done = 0;
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
    done += events.length;
    onProgress({ done, total: Math.max(total, done), elapsedMs: Date.now() - started });
  }
  return { events: done, position: from };
}

export interface TableDifference {
  table: string;
  /** Rows in the live table that a fresh replay does not produce. */
  onlyLive: Record<string, unknown>[];
  /** Rows a fresh replay produces that the live table lacks. */
  onlyRebuilt: Record<string, unknown>[];
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
  const suffix = `${projector.name.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`;
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
    let from: LogPosition | null = null;
    let done = 0;
    while (target) {
      const page = await store.readAll({ after: from, maxCount: batchSize });
      const events = page.filter((e) => comparePositions(e.position, target) <= 0);
      if (events.length > 0) {
        await db.transaction(async (tx) => {
          await tx.query(`SET LOCAL search_path TO ${quoteIdent(scratch)}`);
          await handleExplained(projector, events, tx);
        });
        done += events.length;
        from = events[events.length - 1].position;
        onProgress({ done, total: Math.max(total, done), elapsedMs: Date.now() - started });
      }
      if (events.length < page.length || page.length === 0) break;
    }

    const differences: TableDifference[] = [];
    for (const table of projector.tables) {
      const diff = await diffTables(db, `${quoteIdent(liveCopy)}.${quoteIdent(table)}`, `${quoteIdent(scratch)}.${quoteIdent(table)}`);
      if (diff.error || diff.onlyLive.length || diff.onlyRebuilt.length) differences.push({ table, ...diff });
    }
    return { projector: projector.name, position: target, events: done, differences };
  } finally {
    await db.exec(`DROP SCHEMA IF EXISTS ${quoteIdent(liveCopy)} CASCADE; DROP SCHEMA IF EXISTS ${quoteIdent(scratch)} CASCADE;`);
  }
}

async function diffTables(db: Database, live: string, rebuilt: string): Promise<Omit<TableDifference, 'table'>> {
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

async function dropTables(tx: Sql, projector: Projector, schema: string): Promise<void> {
  for (const table of projector.tables) {
    await tx.query(`DROP TABLE IF EXISTS ${quoteIdent(schema)}.${quoteIdent(table)} CASCADE`);
  }
}
