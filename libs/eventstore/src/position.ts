/**
 * A position in the global log, the same shape on every adapter, ordered by
 * (commit, prepare):
 * - postgres / embedded: commit = transaction id (xid8) of the append,
 *   prepare = the event's global sequence number;
 * - eventstoredb: the $all position {commit, prepare} as the server reports it.
 * Positions are exclusive checkpoints: reading "after" one never returns it again.
 */
export interface LogPosition {
  commit: bigint;
  prepare: bigint;
}

export function comparePositions(a: LogPosition, b: LogPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** "commit/prepare", the form the CLI prints and checkpoints are stored in. */
export function formatPosition(position: LogPosition | null): string {
  return position ? `${position.commit}/${position.prepare}` : 'start';
}

export function parsePosition(text: string | null | undefined): LogPosition | null {
  if (text == null || text === '' || text === 'start') return null;
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) throw new Error(`not a log position: ${JSON.stringify(text)} (expected "commit/prepare")`);
  return { commit: BigInt(match[1]), prepare: BigInt(match[2]) };
}
