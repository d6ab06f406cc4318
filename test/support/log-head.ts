import { EventStore, LogPosition, SqlEventStore, comparePositions } from '@lib/eventstore';
import { eventually } from './eventually';

/**
 * The newest event committed so far, whether or not log readers may see it yet. On PostgreSQL
 * readers see only what lies below the oldest transaction open anywhere on the server (DESIGN.md),
 * so with suites running side by side `store.headPosition()` read right after an append can be
 * older than the append. A test that waits for "everything written so far" waits for this one;
 * a test that checks "nothing was appended" compares this one before and after.
 */
export async function committedHead(store: EventStore): Promise<LogPosition | null> {
  if (!(store instanceof SqlEventStore)) return store.headPosition();
  const { rows } = await store.db.query<{ transaction_id: string; global_position: string }>(
    `SELECT transaction_id::text, global_position::text FROM es_events
     ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
  );
  return rows[0] ? { commit: BigInt(rows[0].transaction_id), prepare: BigInt(rows[0].global_position) } : null;
}

/**
 * Waits until log readers see everything committed so far (no transaction older than the last
 * append is still open anywhere on the server) and returns that head. A test that reads the
 * whole log, or rebuilds from it, and compares with what it wrote waits for this first.
 */
export async function settledHead(store: EventStore): Promise<LogPosition | null> {
  const committed = await committedHead(store);
  if (committed === null) return null;
  return eventually(() => store.headPosition(), (head) => head !== null && comparePositions(head, committed) >= 0, { what: 'the log visible up to its committed head' });
}
