import { Database } from '@lib/database';
import { EventStore, formatPosition } from '@lib/eventstore';
import { Projector, TableDifference, findProjector, projectionStatus, rebuildProjection, verifyProjection } from '@lib/projections';
import { ALL_PROJECTORS } from '@lib/wiring';
import { ProgressBar, redactCredentials, table } from '../output';

type Out = (line: string) => void;

export async function printStatus(store: EventStore, db: Database, json: boolean, out: Out, projectors = ALL_PROJECTORS): Promise<void> {
  const status = await projectionStatus(store, db, projectors);
  if (json) {
    // from the checkpoints: whether a server is applying a projection now, and its last error, are
    // that process's to tell (GET /api/v1/health, metrics) — this one runs none
    // named as GET /api/v1/health names a projection's members (and as the table's columns): snake_case
    for (const s of status) {
      out(JSON.stringify({ name: s.name, position: formatPosition(s.position), events: s.events, lag: s.lag, updated_at: s.updatedAt?.toISOString() ?? null, rebuilt_at: s.rebuiltAt?.toISOString() ?? null }));
    }
    return;
  }
  out(
    table(
      ['projection', 'position', 'events', 'lag', 'updated_at', 'rebuilt_at'],
      status.map((s) => [s.name, formatPosition(s.position), s.events, s.lag, s.updatedAt?.toISOString() ?? '-', s.rebuiltAt?.toISOString() ?? '-']),
    ),
  );
}

export async function rebuild(store: EventStore, db: Database, names: string[], all: boolean, out: Out, projectors = ALL_PROJECTORS): Promise<void> {
  for (const projector of targetsOf(names, all, projectors, 'rebuild')) {
    const bar = new ProgressBar(`rebuild ${projector.name}`);
    const started = Date.now();
    const result = await rebuildProjection(store, db, projector, { onProgress: (p) => bar.update(p.done, p.total, p.elapsedMs) });
    bar.finish(result.events, Date.now() - started);
    out(`rebuilt ${projector.name}: ${result.events} events in ${((Date.now() - started) / 1000).toFixed(1)} s, position ${formatPosition(result.position)}`);
  }
}

/** The projections a rebuild or verify names (every one with `all`); none named is a usage error. */
function targetsOf(names: string[], all: boolean, projectors: readonly Projector[], verb: string): readonly Projector[] {
  const targets = all ? projectors : names.map((n) => findProjector(n, projectors));
  if (targets.length === 0) throw new Error(`name a projection to ${verb}, or pass --all`);
  return targets;
}

/**
 * Verifies each projection named (every one with `all`), one after another, each to the end.
 * Returns the exit code: 0 when every one's live tables equal a fresh replay, 1 otherwise.
 */
export async function verify(store: EventStore, db: Database, names: string[], all: boolean, out: Out, projectors = ALL_PROJECTORS): Promise<number> {
  let code = 0;
  for (const projector of targetsOf(names, all, projectors, 'verify')) code = Math.max(code, await verifyOne(store, db, projector, out));
  return code;
}

async function verifyOne(store: EventStore, db: Database, projector: Projector, out: Out): Promise<number> {
  const bar = new ProgressBar(`verify ${projector.name}`);
  const started = Date.now();
  const result = await verifyProjection(store, db, projector, { onProgress: (p) => bar.update(p.done, p.total, p.elapsedMs) });
  bar.finish(result.events, Date.now() - started);
  if (result.differences.length === 0) {
    out(`${projector.name}: OK, live tables equal a fresh replay of ${result.events} events (up to ${formatPosition(result.position)})`);
    // what was compared ends at the projection's checkpoint: say so when the log goes further (a live runner behind, or stuck on a failing event)
    const behind = await store.countAfter(result.position);
    if (behind > 0) out(`${projector.name}: ${behind} event(s) after that position are not projected yet (\`projections status\`; a projection that stays behind is failing on an event: see the service's log, or run \`projections rebuild ${projector.name}\`)`);
    return 0;
  }
  const counts = { changed: 0, missing: 0, extra: 0 };
  for (const diff of result.differences) {
    if (diff.error) out(`${diff.table}: ${diff.error}`);
    const { changed, onlyLive, onlyRebuilt } = pairByKey(diff);
    for (const [live, replay] of changed) {
      out(`${diff.table} ~ changed, live has:   ${rowJson(live)}`);
      out(`${diff.table} ~ changed, replay has: ${rowJson(replay)}`);
    }
    for (const row of onlyLive) out(`${diff.table} - live only:    ${rowJson(row)}`);
    for (const row of onlyRebuilt) out(`${diff.table} + replay only:  ${rowJson(row)}`);
    counts.changed += changed.length;
    counts.extra += onlyLive.length;
    counts.missing += onlyRebuilt.length;
  }
  const rows = counts.changed + counts.missing + counts.extra;
  const parts = [
    counts.changed > 0 ? `${counts.changed} changed` : null,
    counts.missing > 0 ? `${counts.missing} missing from the live tables` : null,
    counts.extra > 0 ? `${counts.extra} only in the live tables` : null,
  ].filter((p) => p !== null);
  out(`${projector.name}: DIFFERENT: ${rows} differing row${rows === 1 ? '' : 's'} in ${result.differences.length} table(s)${parts.length > 0 ? ` (${parts.join(', ')})` : ''}; fix with: projections rebuild ${projector.name}`);
  return 1;
}

/** A row of a verify report: credentials' hashes (password_hash, secret_hash, token_hash, …) as "[redacted]", as `events` prints them. */
function rowJson(row: Record<string, unknown>): string {
  return JSON.stringify(redactCredentials(row));
}

/**
 * The two sides of a table's difference, a live row and a replayed row with the same primary key
 * paired as one changed row (a table without one pairs nothing): so one changed row counts once.
 */
function pairByKey(diff: TableDifference): { changed: [Record<string, unknown>, Record<string, unknown>][]; onlyLive: Record<string, unknown>[]; onlyRebuilt: Record<string, unknown>[] } {
  if (diff.key.length === 0) return { changed: [], onlyLive: diff.onlyLive, onlyRebuilt: diff.onlyRebuilt };
  const keyOf = (row: Record<string, unknown>) => JSON.stringify(diff.key.map((column) => row[column]));
  const replayed = new Map<string, Record<string, unknown>[]>();
  for (const row of diff.onlyRebuilt) replayed.set(keyOf(row), [...(replayed.get(keyOf(row)) ?? []), row]);
  const changed: [Record<string, unknown>, Record<string, unknown>][] = [];
  const onlyLive: Record<string, unknown>[] = [];
  for (const row of diff.onlyLive) {
    const match = replayed.get(keyOf(row))?.shift();
    if (match === undefined) onlyLive.push(row);
    else changed.push([row, match]);
  }
  return { changed, onlyLive, onlyRebuilt: [...replayed.values()].flat() };
}
