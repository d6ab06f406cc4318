import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { OpenedStore, openEventStore } from '@lib/eventstore';
import { ProjectionRunner, streamCatalogProjector, verifyProjection } from '@lib/projections';
import { readAllAfter } from '../eventstore/event-store.contract';
import { STORE_KINDS, testStorage } from '../support/fixtures';
import { eventually } from '../support/eventually';

const ROOT = join(__dirname, '..', '..');

interface Acked {
  stream: string;
  revision: number;
  ids: string[];
}

/** Runs the child until it has acknowledged `minAcks` appends (and at least `minMs`), then SIGKILLs it. */
async function appendThenKill(env: NodeJS.ProcessEnv, minAcks: number, minMs: number): Promise<Acked[]> {
  const child: ChildProcess = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'append-under-load.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acked: Acked[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let startedAt = 0;
  const killed = new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line === 'ready') startedAt = Date.now();
      const match = /^ack (\S+) (\d+) (\S+)$/.exec(line);
      if (!match) return;
      acked.push({ stream: match[1], revision: Number(match[2]), ids: match[3].split(',') });
      if (acked.length >= minAcks && Date.now() - startedAt >= minMs && !child.killed) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    void exited.then(({ signal }) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited on its own: ${stderr}`))));
  });
  await killed;
  const { signal } = await exited;
  expect(signal).toBe('SIGKILL');
  return acked;
}

async function checkAfterCrash(opened: OpenedStore, acked: Acked[]): Promise<void> {
  const { store, db } = opened;
  // On PostgreSQL the log shows an event once every transaction older than its own has ended: the
  // killed process's open transactions end when the server notices its connections closed, which
  // a loaded machine may take a moment to do. Wait for that (a lost append never shows: the
  // deadline fails the test, naming the ids still missing), then check the whole log.
  const acknowledged = acked.flatMap((a) => a.ids);
  await eventually(
    async () => {
      const seen = new Set((await readAllAfter(store, null)).map((e) => e.id));
      return acknowledged.filter((id) => !seen.has(id));
    },
    (missing) => missing.length === 0,
    { what: 'every acknowledged append in the log', timeoutMs: 30_000, intervalMs: 100 },
  );
  const log = await readAllAfter(store, null);
  const ids = log.map((e) => e.id);
  // nothing duplicated
  expect(new Set(ids).size).toBe(ids.length);
  // every acknowledged append is present, in its stream, at the acknowledged revision
  const byId = new Map(log.map((e) => [e.id, e]));
  for (const ack of acked) {
    ack.ids.forEach((id, k) => {
      const event = byId.get(id);
      expect(event).toBeDefined();
      expect(event!.stream).toBe(ack.stream);
      expect(event!.revision).toBe(ack.revision - (ack.ids.length - 1 - k));
    });
  }
  // every stream is gap-free: revisions 0..n-1 in order
  const streams = new Map<string, number[]>();
  for (const e of log) streams.set(e.stream, [...(streams.get(e.stream) ?? []), e.revision]);
  for (const [, revisions] of streams) expect(revisions).toEqual(revisions.map((_, i) => i));

  // the projection the child was running converges to exactly what a fresh replay produces
  const runner = new ProjectionRunner(store, db, [streamCatalogProjector]);
  await runner.start();
  expect(await runner.waitFor(log[log.length - 1].position, 30_000)).toBe(true);
  await runner.stop();
  const verified = await verifyProjection(store, db, streamCatalogProjector);
  expect(verified.differences).toEqual([]);
  const { rows } = await db.query<{ total: string }>(`SELECT sum(events)::text AS total FROM stream_catalog`);
  expect(Number(rows[0].total)).toBe(log.length);
}

describe.each(STORE_KINDS)('crash under load: %s', (kind) => {
  it('keeps every acknowledged append after SIGKILL, twice over, with nothing duplicated and projections equal to a replay', async () => {
    const { env, cleanup } = await testStorage(kind, 'crash');
    const open = () => openEventStore(env.DATA_DIR ? { dataDir: env.DATA_DIR } : { databaseUrl: env.DATABASE_URL });
    try {
      const acked: Acked[] = [];
      for (let round = 0; round < 2; round++) {
        acked.push(...(await appendThenKill({ ...env, ROUND: String(round) }, 150, 1500)));
        const opened = await open(); // for embedded this also takes over the dead child's lock
        try {
          await checkAfterCrash(opened, acked);
        } finally {
          await opened.close();
        }
      }
      expect(acked.length).toBeGreaterThanOrEqual(300);
    } finally {
      await cleanup();
    }
  });
});
