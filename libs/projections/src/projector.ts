import { Sql } from '@lib/database';
import { RecordedEvent } from '@lib/eventstore';

/**
 * A projector: a named handler over the global log that keeps SQL read-model tables.
 *
 * Rules that make rebuild and verify work:
 * - tables are named without a schema: the engine points search_path at the live schema
 *   (public) or at a scratch schema when it rebuilds into one;
 * - `schema` creates every table of `tables` (and their indexes) from nothing;
 * - `handle` is deterministic: it uses only the events (recordedAt, data, ids), never the
 *   clock or random values, so replaying the log always produces the same rows;
 * - `handle` reads and writes only its own `tables` (and its own rows of shared public tables such
 *   as the webhook outbox): the projectors of a batch run side by side on one transaction, in no
 *   set order.
 */
export interface Projector {
  readonly name: string;
  /** DDL that creates the projector's tables in the current schema. */
  readonly schema: string;
  /** Every table the projector owns, in the order they may be dropped. */
  readonly tables: readonly string[];
  /**
   * Applies one batch inside the transaction that also moves the checkpoint. May say which
   * scopes (business ids) the batch changed rows of, for this process's caches of the
   * projector's reads (ScopedReadCache); saying nothing means any scope may have changed.
   */
  handle(events: RecordedEvent[], tx: Sql): Promise<void | BatchChanges>;
}

/** What a projector's batch changed: the scopes (business ids) whose rows it wrote. */
export interface BatchChanges {
  scopes: readonly string[];
}

export const PROJECTORS = Symbol('PROJECTORS');

/** The projector named `name` among `projectors` (the composition root's list); throws naming the known ones. */
export function findProjector(name: string, projectors: readonly Projector[]): Projector {
  const projector = projectors.find((p) => p.name === name);
  if (!projector) throw new Error(`no projection named ${JSON.stringify(name)}; known: ${projectors.map((p) => p.name).join(', ')}`);
  return projector;
}
