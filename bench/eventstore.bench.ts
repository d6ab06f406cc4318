/**
 * Event-store benchmark: the SQL event store (embedded PGlite and PostgreSQL) against a raw
 * INSERT / keyset SELECT baseline on a plain table in the same database, in the same run.
 *
 *   npm run bench:eventstore
 *
 * Environment:
 *   BENCH_SECONDS         measured seconds per cell and round (default 2)
 *   BENCH_ROUNDS          rounds per append cell, store and raw alternating; median reported (default 3)
 *   BENCH_WARMUP_SECONDS  warm-up seconds per cell, not counted (default 0.5)
 *   BENCH_DATABASE_URL    admin connection to the PostgreSQL server; a fresh database is
 *                         created there and dropped at the end
 *                         (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_ADAPTERS        comma list, subset of "embedded,postgres" (default both)
 *
 * Results are printed as a table and written to bench/results/eventstore-<date>.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { Database } from '@lib/database';
import { EventStore, NewEvent, OpenedStore, openEventStore } from '@lib/eventstore';

type AdapterName = 'embedded' | 'postgres';

const MEASURE_MS = seconds('BENCH_SECONDS', 2) * 1000;
/** Each append cell runs this many rounds, store and raw alternating (ABBA…); the median counts. */
const ROUNDS = Math.max(1, Math.round(seconds('BENCH_ROUNDS', 3)));
const WARMUP_MS = seconds('BENCH_WARMUP_SECONDS', 0.5) * 1000;
const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const ADAPTERS = (process.env.BENCH_ADAPTERS || 'embedded,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is AdapterName => s === 'embedded' || s === 'postgres');
const CATCH_UP_BATCH = 500;

function seconds(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

// ---------------------------------------------------------------------------------------------
// Payload: a realistic payment event (~300 bytes of data) with full metadata.

function makeEvent(): NewEvent {
  return {
    id: randomUUID(),
    type: 'PaymentCaptured',
    data: {
      paymentId: randomUUID(),
      merchantId: 'mch_7Hq2LrX9aP',
      amount: { currency: 'EUR', minor: 129_900 },
      method: 'card',
      card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2029, country: 'DE' },
      description: 'Order #A-10293 (3 items)',
      capturedAt: new Date().toISOString(),
    },
    metadata: {
      correlationId: randomUUID(),
      causationId: randomUUID(),
      actor: { kind: 'api_key', id: 'key_2b9f1c', name: 'checkout-frontend' },
      requestId: `req_${randomUUID().slice(0, 18)}`,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Timed cells.

interface CellResult {
  ops: number;
  events: number;
  seconds: number;
  opsPerSec: number;
  eventsPerSec: number;
  latencyMs: { p50: number; p99: number; max: number };
}

/** One operation of one writer; resolves with how many events/rows it wrote or read. */
type Op = () => Promise<number>;

/**
 * Runs `writers` concurrent loops of their op: a warm-up (not counted) until every loop has
 * passed the warm-up deadline, then a measured phase of MEASURE_MS. A loop starts no new op
 * after the deadline; elapsed time runs until the last in-flight op has finished.
 */
async function timedCell(ops: Op[]): Promise<CellResult> {
  const warmupEnd = performance.now() + WARMUP_MS;
  await Promise.all(ops.map(async (op) => {
    while (performance.now() < warmupEnd) await op();
  }));

  const latencies: number[] = [];
  let count = 0;
  let events = 0;
  const start = performance.now();
  const deadline = start + MEASURE_MS;
  await Promise.all(ops.map(async (op) => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= deadline) return;
      const n = await op(); // not `events += await op()`: that reads `events` before the await
      latencies.push(performance.now() - t0);
      events += n;
      count++;
    }
  }));
  const elapsed = (performance.now() - start) / 1000;
  return summarise(count, events, elapsed, latencies);
}

function summarise(ops: number, events: number, secondsElapsed: number, latencies: number[]): CellResult {
  const sorted = Float64Array.from(latencies).sort();
  const pick = (q: number) => (sorted.length ? round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))], 3) : 0);
  return {
    ops,
    events,
    seconds: round(secondsElapsed, 3),
    opsPerSec: round(ops / secondsElapsed, 1),
    eventsPerSec: round(events / secondsElapsed, 1),
    latencyMs: { p50: pick(0.5), p99: pick(0.99), max: sorted.length ? round(sorted[sorted.length - 1], 3) : 0 },
  };
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

// ---------------------------------------------------------------------------------------------
// Operations: event store append (exact revision on the writer's own stream) and raw INSERT.

function storeWriters(store: EventStore, scenario: string, writers: number, batch: number): Op[] {
  return Array.from({ length: writers }, (_, w) => {
    const stream = `bench-${scenario}-w${w}-${randomUUID().slice(0, 8)}`;
    let revision: number | 'no_stream' = 'no_stream';
    return async () => {
      const events = Array.from({ length: batch }, makeEvent);
      const result = await store.append(stream, events, revision);
      revision = result.nextExpectedRevision;
      return batch;
    };
  });
}

function rawInsertSql(batch: number): string {
  const values = Array.from({ length: batch }, (_, i) => `($${2 * i + 1}, $${2 * i + 2}::jsonb)`);
  return `INSERT INTO bench_raw (stream_id, data) VALUES ${values.join(', ')}`;
}

function rawWriters(db: Database, scenario: string, writers: number, batch: number): Op[] {
  const sql = rawInsertSql(batch);
  return Array.from({ length: writers }, (_, w) => {
    const stream = `bench-${scenario}-w${w}-${randomUUID().slice(0, 8)}`;
    return async () => {
      const params: unknown[] = [];
      for (let i = 0; i < batch; i++) params.push(stream, JSON.stringify(makeEvent()));
      await db.query(sql, params);
      return batch;
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Catch-up: subscribe from the start over everything written, vs. keyset paging of bench_raw.

async function storeCatchUp(store: EventStore): Promise<CellResult> {
  const expected = await store.countAfter(null);
  await store.readAll({ maxCount: CATCH_UP_BATCH }); // warm the statement path; not counted
  let seen = 0;
  let pages = 0;
  const latencies: number[] = [];
  let last = performance.now();
  const start = last;
  const subscription = store.subscribe(
    async (events) => {
      seen += events.length;
      pages++;
      const now = performance.now();
      latencies.push(now - last);
      last = now;
    },
    { batchSize: CATCH_UP_BATCH },
  );
  await Promise.race([subscription.caughtUp, subscription.done]);
  const elapsed = (performance.now() - start) / 1000;
  await subscription.stop();
  if (seen !== expected) throw new Error(`catch-up saw ${seen} events, expected ${expected}`);
  return summarise(pages, seen, elapsed, latencies);
}

async function rawCatchUp(db: Database): Promise<CellResult> {
  const sql = `SELECT id::text AS id, stream_id, data FROM bench_raw WHERE bench_raw.id > $1 ORDER BY bench_raw.id LIMIT ${CATCH_UP_BATCH}`;
  const expected = Number((await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM bench_raw`)).rows[0].n);
  await db.query(sql, ['0']); // warm-up, not counted
  let after = '0';
  let seen = 0;
  let pages = 0;
  const latencies: number[] = [];
  const start = performance.now();
  for (;;) {
    const t0 = performance.now();
    const { rows } = await db.query<{ id: string; stream_id: string; data: unknown }>(sql, [after]);
    latencies.push(performance.now() - t0);
    if (rows.length > 0) {
      seen += rows.length;
      pages++;
      after = rows[rows.length - 1].id;
    }
    if (rows.length < CATCH_UP_BATCH) break;
  }
  const elapsed = (performance.now() - start) / 1000;
  if (seen !== expected) throw new Error(`raw catch-up saw ${seen} rows, expected ${expected}`);
  return summarise(pages, seen, elapsed, latencies);
}

// ---------------------------------------------------------------------------------------------
// Adapters: a fresh embedded directory or a fresh PostgreSQL database per run.

interface Target {
  adapter: AdapterName;
  opened: OpenedStore;
  cleanup: () => Promise<void>;
  serverVersion?: string;
}

async function openEmbeddedTarget(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-eventstore-'));
  const cleanup = async () => rmSync(dir, { recursive: true, force: true });
  try {
    const opened = await openEventStore({ dataDir: dir });
    return { adapter: 'embedded', opened, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

async function openPostgresTarget(): Promise<Target> {
  const name = `bench_eventstore_${process.pid}_${Date.now()}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  let serverVersion: string;
  try {
    serverVersion = (await admin.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0].v;
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const cleanup = async () => {
    const c = new Client({ connectionString: ADMIN_URL });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  };
  activeCleanups.add(cleanup);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  try {
    // openEventStore's pool has max 10 connections: enough for 8 concurrent writers.
    const opened = await openEventStore({ databaseUrl: url.toString() });
    return { adapter: 'postgres', opened, cleanup, serverVersion };
  } catch (error) {
    await cleanup();
    activeCleanups.delete(cleanup);
    throw error;
  }
}

/** Cleanups to run if the process is interrupted. */
const activeCleanups = new Set<() => Promise<void>>();

// ---------------------------------------------------------------------------------------------
// Scenarios.

interface Row {
  adapter: AdapterName;
  scenario: string;
  writers: number;
  batch: number;
  store: CellResult;
  raw: CellResult;
  /** store events/s ÷ raw rows/s */
  ratio: number;
}

const APPEND_SCENARIOS = [
  { scenario: 'append 1w x1', key: 'a1x1', writers: 1, batch: 1 },
  { scenario: 'append 8w x1', key: 'a8x1', writers: 8, batch: 1 },
  { scenario: 'append 1w x10', key: 'a1x10', writers: 1, batch: 10 },
  { scenario: 'append 8w x10', key: 'a8x10', writers: 8, batch: 10 },
];

async function benchAdapter(target: Target): Promise<Row[]> {
  const { store, db } = target.opened;
  await db.exec(`CREATE TABLE bench_raw (id bigserial PRIMARY KEY, stream_id text NOT NULL, data jsonb NOT NULL)`);
  const rows: Row[] = [];
  for (const s of APPEND_SCENARIOS) {
    const storeRuns: CellResult[] = [];
    const rawRuns: CellResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runStore = async () => {
        progress(`${target.adapter}: ${s.scenario} — event store (round ${round + 1}/${ROUNDS})`);
        storeRuns.push(await timedCell(storeWriters(store, `${s.key}r${round}`, s.writers, s.batch)));
      };
      const runRaw = async () => {
        progress(`${target.adapter}: ${s.scenario} — raw insert (round ${round + 1}/${ROUNDS})`);
        rawRuns.push(await timedCell(rawWriters(db, `${s.key}r${round}`, s.writers, s.batch)));
      };
      // alternate which goes first, so drift (WAL, autovacuum, caches) hits both sides alike
      if (round % 2 === 0) await runStore().then(runRaw);
      else await runRaw().then(runStore);
    }
    rows.push(row(target.adapter, s.scenario, s.writers, s.batch, median(storeRuns), median(rawRuns)));
  }
  progress(`${target.adapter}: catch-up — event store subscription`);
  const storeResult = await storeCatchUp(store);
  progress(`${target.adapter}: catch-up — raw keyset SELECT`);
  const rawResult = await rawCatchUp(db);
  rows.push(row(target.adapter, `catch-up b${CATCH_UP_BATCH}`, 1, CATCH_UP_BATCH, storeResult, rawResult));
  return rows;
}

function median(runs: CellResult[]): CellResult {
  const sorted = [...runs].sort((a, b) => a.eventsPerSec - b.eventsPerSec);
  return sorted[Math.floor(sorted.length / 2)];
}

function row(adapter: AdapterName, scenario: string, writers: number, batch: number, store: CellResult, raw: CellResult): Row {
  return { adapter, scenario, writers, batch, store, raw, ratio: round(store.eventsPerSec / raw.eventsPerSec, 3) };
}

function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Output.

function formatTable(rows: Row[]): string {
  const header = ['adapter', 'scenario', 'store ops/s', 'store events/s', 'raw ops/s', 'raw rows/s', 'store/raw'];
  const body = rows.map((r) => [
    r.adapter,
    r.scenario,
    fmt(r.store.opsPerSec),
    fmt(r.store.eventsPerSec),
    fmt(r.raw.opsPerSec),
    fmt(r.raw.eventsPerSec),
    `${r.ratio.toFixed(2)}×`,
  ]);
  const all = [header, ...body];
  const widths = header.map((_, i) => Math.max(...all.map((cells) => cells[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function pgliteVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'));
    return String(pkg.version);
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    pglite: pgliteVersion(),
    postgres: undefined as string | undefined,
  };
  progress(`measure ${MEASURE_MS / 1000}s + warm-up ${WARMUP_MS / 1000}s per cell; adapters: ${ADAPTERS.join(', ')}`);

  const rows: Row[] = [];
  for (const adapter of ADAPTERS) {
    const target = adapter === 'embedded' ? await openEmbeddedTarget() : await openPostgresTarget();
    activeCleanups.add(target.cleanup);
    if (target.serverVersion) machine.postgres = target.serverVersion;
    try {
      rows.push(...(await benchAdapter(target)));
    } finally {
      await target.opened.close().catch(() => undefined);
      await target.cleanup();
      activeCleanups.delete(target.cleanup);
    }
  }

  const table = formatTable(rows);
  const target = rows.find((r) => r.adapter === 'postgres' && r.scenario === 'append 8w x1');
  const targetLine = target
    ? `postgres append at 8 writers: ${target.ratio.toFixed(2)}× raw insert (target ≥ 0.8×)${target.ratio >= 0.8 ? '' : '  — BELOW TARGET'}`
    : 'postgres append at 8 writers: not measured';

  console.log('');
  console.log(`Event store benchmark — ${startedAt.toISOString()}`);
  console.log(
    `machine: ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, ` +
      `PostgreSQL ${machine.postgres ?? 'n/a'}, PGlite ${machine.pglite}; ` +
      `median of ${ROUNDS} alternating rounds of ${MEASURE_MS / 1000}s after ${WARMUP_MS / 1000}s warm-up per append cell`,
  );
  console.log('');
  console.log(table);
  console.log('');
  console.log(targetLine);

  const resultsDir = join(__dirname, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `eventstore-${startedAt.toISOString().slice(0, 10)}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        config: { measureSeconds: MEASURE_MS / 1000, warmupSeconds: WARMUP_MS / 1000, catchUpBatch: CATCH_UP_BATCH, adapters: ADAPTERS },
        machine,
        payloadBytes: Buffer.byteLength(JSON.stringify(makeEvent())),
        rows,
        target: target ? { scenario: target.scenario, ratio: target.ratio, met: target.ratio >= 0.8 } : null,
        table,
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`results: ${file}`);
}

process.once('SIGINT', () => {
  progress('interrupted; cleaning up');
  void Promise.allSettled([...activeCleanups].map((c) => c())).finally(() => process.exit(130));
});

main().then(
  () => process.exit(0),
  async (error) => {
    console.error(error);
    await Promise.allSettled([...activeCleanups].map((c) => c()));
    process.exit(1);
  },
);
