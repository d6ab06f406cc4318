import { Database, Sql } from '@lib/database';
import { LogPosition, RecordedEvent, formatPosition, parsePosition } from '@lib/eventstore';
import { BatchChanges, Projector } from './projector';

export const LIVE_SCHEMA = 'public';

export interface Checkpoint {
  name: string;
  position: LogPosition | null;
  events: number;
  /** null while the projection has never run. */
  updatedAt: Date | null;
  rebuiltAt: Date | null;
}

/** Another process moved the checkpoint (a second worker, or a rebuild): re-read it and go on. */
export class CheckpointMovedError extends Error {
  override readonly name = 'CheckpointMovedError';
  constructor(readonly projector: string) {
    super(`projection ${projector}: checkpoint moved by another process`);
  }
}

/**
 * A projector failed on a batch: says which projection, how many events, their positions and the
 * first one's stream and type, so an operator can find the event in the log (`events stream`).
 * The projector's own error is the `cause`; its database `code`, if any, is kept.
 */
export class ProjectionBatchError extends Error {
  override readonly name = 'ProjectionBatchError';
  readonly code: string | undefined;
  constructor(
    readonly projector: string,
    events: readonly RecordedEvent[],
    override readonly cause: unknown,
  ) {
    const first = events[0];
    const last = events[events.length - 1];
    const where = first === undefined ? 'an empty batch' : `${events.length} event(s) at ${formatPosition(first.position)}..${formatPosition(last.position)}, the first ${first.type} of ${first.stream}`;
    super(`projection ${projector} failed on ${where}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.code = (cause as { code?: string } | null)?.code;
  }
}

/** Runs a projector's batch, naming the batch in the error of a failure (ProjectionBatchError). */
export async function handleExplained(projector: Projector, events: RecordedEvent[], tx: Sql): Promise<void | BatchChanges> {
  try {
    return await projector.handle(events, tx);
  } catch (error) {
    if (error instanceof ProjectionBatchError || (error as { code?: string } | null)?.code === IN_FAILED_TRANSACTION) throw error;
    throw new ProjectionBatchError(projector.name, events, error);
  }
}

/** Reads checkpoints (a projection that never ran is at the start); writes nothing. */
export async function readCheckpoints(db: Sql, names: readonly string[]): Promise<Map<string, Checkpoint>> {
  const { rows } = await db.query<{ name: string; position: string; events: string; updated_at: Date; rebuilt_at: Date | null }>(
    `SELECT name, position, events::text, updated_at, rebuilt_at FROM public.projection_checkpoints WHERE name = ANY($1::text[])`,
    [names],
  );
  const found = new Map(rows.map((r) => [r.name, r]));
  return new Map(
    names.map((name) => {
      const row = found.get(name);
      const checkpoint: Checkpoint = row
        ? { name, position: parsePosition(row.position), events: Number(row.events), updatedAt: row.updated_at, rebuiltAt: row.rebuilt_at }
        : { name, position: null, events: 0, updatedAt: null, rebuiltAt: null };
      return [name, checkpoint];
    }),
  );
}

export async function readCheckpoint(db: Sql, name: string): Promise<Checkpoint> {
  return (await readCheckpoints(db, [name])).get(name)!;
}

/** Creates the checkpoint row a projector's batches compare-and-set against. */
export async function ensureCheckpoint(db: Sql, name: string): Promise<void> {
  await db.query(`INSERT INTO public.projection_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, [name]);
}

/** Locks a checkpoint row until the transaction ends (a rebuild's swap: live compare-and-sets wait) and answers its position. */
export async function lockCheckpoint(tx: Sql, name: string): Promise<LogPosition | null> {
  const { rows } = await tx.query<{ position: string }>(`SELECT position FROM public.projection_checkpoints WHERE name = $1 FOR UPDATE`, [name]);
  return parsePosition(rows[0].position);
}

/** Records that a rebuild swapped the projector's tables in at the checkpoint's position, holding `events` events. */
export async function markRebuilt(tx: Sql, name: string, events: number): Promise<void> {
  await tx.query(`UPDATE public.projection_checkpoints SET events = $2, updated_at = now(), rebuilt_at = clock_timestamp() WHERE name = $1`, [name, events]);
}

/** Creates the projector's tables (if missing) in a schema. */
export async function ensureTables(tx: Sql, projector: Projector, schema = LIVE_SCHEMA): Promise<void> {
  await tx.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
  await tx.exec(projector.schema);
  await tx.query(`SET LOCAL search_path TO ${quoteIdent(LIVE_SCHEMA)}`);
}

/**
 * Moves a subscriber's checkpoint from `from` to the last position of `events`, by
 * compare-and-set: throws CheckpointMovedError when another process (a second worker, a rebuild)
 * moved it meanwhile, so two processes never both count the same batch. Pass a transaction to
 * commit it with the batch's rows (projectors); reactors move it after their effects.
 */
export async function moveCheckpoint(sql: Sql, name: string, from: LogPosition | null, events: readonly RecordedEvent[]): Promise<void> {
  await moveCheckpointTo(sql, name, from, events[events.length - 1].position, events.length);
}

/** moveCheckpoint to a position, counting `events` events handled since `from`. */
export async function moveCheckpointTo(sql: Sql, name: string, from: LogPosition | null, to: LogPosition, events: number): Promise<void> {
  const moved = await sql.query(
    `UPDATE public.projection_checkpoints SET position = $3, events = events + $4, updated_at = now()
     WHERE name = $1 AND position = $2`,
    [name, formatPosition(from), formatPosition(to), events],
    'checkpoints_move',
  );
  if (moved.rowCount !== 1) throw new CheckpointMovedError(name);
}

/**
 * Applies a batch and moves the checkpoint from `from` to the batch's last position in one
 * transaction: the rows and the checkpoint commit together or not at all.
 */
export async function applyBatch(db: Database, projector: Projector, from: LogPosition | null, events: RecordedEvent[], rebuilds?: RebuildsSeen): Promise<ChangedScopes> {
  return (await applyBatches(db, [{ projector, from, events }], rebuilds)).get(projector.name) ?? null;
}

/**
 * When each projection's tables were last swapped in by a rebuild (`rebuilt_at`, ms; null: never),
 * as a process last saw it. A rebuild keeps the checkpoint's position (the new tables hold the
 * same events), so a live runner's compare-and-set does not fail on it; applyBatches compares
 * this instead, and reports every scope changed (null) for a projection rebuilt since.
 */
export type RebuildsSeen = Map<string, number | null>;

/** The scopes a projector's batch changed (BatchChanges), or null when it did not say: any may have. */
export type ChangedScopes = readonly string[] | null;

/** One projector's share of a batch: the events after its checkpoint `from`. */
export interface ProjectorBatch {
  projector: Projector;
  from: LogPosition | null;
  events: RecordedEvent[];
}

/**
 * Applies several projectors' batches in ONE transaction: one compare-and-set statement moves all
 * their checkpoints (CheckpointMovedError if any was moved by another process), then the
 * projectors write their rows, side by side (handleTogether). All commit together or none does;
 * a deadlock between two processes moving the same checkpoints is reported as a moved checkpoint
 * (nothing was applied: re-read, go on).
 */
export async function applyBatches(db: Database, batches: readonly ProjectorBatch[], rebuilds?: RebuildsSeen): Promise<Map<string, ChangedScopes>> {
  const work = batches.filter((b) => b.events.length > 0).sort((a, b) => (a.projector.name < b.projector.name ? -1 : 1));
  if (work.length === 0) return new Map();
  try {
    const seen = new Map<string, number | null>();
    const scopes = await db.transaction(
      async (tx) => {
        const rebuiltAt = await moveCheckpoints(tx, work);
        seen.clear();
        for (const [name, at] of rebuiltAt) seen.set(name, at);
        const scopes = await handleTogether(tx, work);
        if (rebuilds) {
          for (const [name, at] of rebuiltAt) {
            if (rebuilds.has(name) && rebuilds.get(name) !== at) scopes.set(name, null); // tables swapped in since: any scope
          }
        }
        return scopes;
      },
      'read committed',
      `SET LOCAL search_path TO ${quoteIdent(LIVE_SCHEMA)}`,
    );
    for (const [name, at] of seen) rebuilds?.set(name, at);
    return scopes;
  } catch (error) {
    if ((error as { code?: string }).code === '40P01') throw new CheckpointMovedError(work.map((b) => b.projector.name).join(', '));
    throw error;
  }
}

/**
 * Every projector's share of the batch at once on the one transaction: each owns its tables and
 * reads no other's, so their order does not matter, and the driver sends each queued statement
 * the moment the previous one is answered instead of one projector's chain after another's
 * (the batch commits sooner, which is the projection lag). A failure aborts the transaction, so
 * the statements queued behind it fail with "current transaction is aborted": every projector
 * is awaited, and the error that caused it is the one thrown.
 */
async function handleTogether(tx: Sql, work: readonly ProjectorBatch[]): Promise<Map<string, ChangedScopes>> {
  const results = await Promise.allSettled(work.map(({ projector, events }) => handleExplained(projector, events, tx)));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length > 0) throw failures.find((e) => (e as { code?: string }).code !== IN_FAILED_TRANSACTION) ?? failures[0];
  return new Map(work.map(({ projector }, i) => [projector.name, scopesOf((results[i] as PromiseFulfilledResult<void | BatchChanges>).value)]));
}

function scopesOf(changes: void | BatchChanges): ChangedScopes {
  return changes && Array.isArray(changes.scopes) ? changes.scopes : null;
}

/** PostgreSQL's "current transaction is aborted, commands ignored until end of transaction block". */
const IN_FAILED_TRANSACTION = '25P02';

/** Moves every batch's checkpoint by compare-and-set; answers each one's `rebuilt_at` (ms, null: never rebuilt). */
async function moveCheckpoints(tx: Sql, work: readonly ProjectorBatch[]): Promise<Map<string, number | null>> {
  const moved = await tx.query<{ name: string; rebuilt_at: Date | null }>(
    `UPDATE public.projection_checkpoints c SET position = m.to_position, events = c.events + m.n, updated_at = now()
     FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS m(name, from_position, to_position, n)
     WHERE c.name = m.name AND c.position = m.from_position
     RETURNING c.name, c.rebuilt_at`,
    [
      work.map((b) => b.projector.name),
      work.map((b) => formatPosition(b.from)),
      work.map((b) => formatPosition(b.events[b.events.length - 1].position)),
      work.map((b) => b.events.length),
    ],
    'checkpoints_move_batches',
  );
  if (moved.rowCount !== work.length) throw new CheckpointMovedError(work.map((b) => b.projector.name).join(', '));
  return new Map(moved.rows.map((r) => [r.name, r.rebuilt_at === null ? null : new Date(r.rebuilt_at).getTime()]));
}

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`invalid SQL identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}
