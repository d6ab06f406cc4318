/**
 * `npm run bench:scale`: does a second API process help, and does splitting the roles lose or
 * double anything? Two deployments on PostgreSQL + Redis, each on its own throwaway database,
 * both started before the first round so that their rounds can alternate (the machine is shared:
 * alternating spreads its noise over both):
 *   one   — one process, ROLE=all (`npm start`'s shape: the API, the projections, the timers, the
 *           payments reactor and the webhook dispatcher);
 *   split — two API processes (ROLE=api) and one worker (`apps/worker`): the split roles of the
 *           README's "Start API and workers apart". An API process runs nothing in the background
 *           and waits for the read models by polling the checkpoints the worker moves.
 * Every server is a child process (`node -r @swc-node/register apps/…/main.ts`) with the
 * service's own environment (DATABASE_URL, REDIS_URL for idempotency keys and rate limits, PORT,
 * ROLE). The business and its secret key are made from outside, with the operator CLI
 * (`businesses create --simulated --json`) on the same database, before the servers start.
 *
 * Load: BENCH_CLIENTS (16) concurrent clients (a closed loop: each sends its next request when
 * the last one is answered) create payments with POST /payments; the load balancer is the
 * generator itself, round-robin over the API ports (one port for `one`). Every 4th request carries
 * a fresh Idempotency-Key; every 16th is then sent again with the same key to the next port (the
 * other API process in `split`): it must be answered 201 `Idempotent-Replayed: true`, byte for
 * byte the first answer. Per round: BENCH_WARMUP_SECONDS (3) unmeasured, then BENCH_SECONDS (10)
 * measured, BENCH_ROUNDS (3) rounds; a round ends when its deadline passed and every client's
 * last request was answered. Reported: medians over rounds of payments/s (new payments answered
 * 201 / the round's seconds), and of each round's POST /payments p50/p99 (replays excluded); the
 * CPU seconds each server, this process (the load generator) and the deployment's PostgreSQL
 * backends used (/proc), the CPU ms and (approximately) the PostgreSQL transactions per payment,
 * and how busy the whole machine was. On a machine shared with other work a closed loop's
 * payments/s is the CPU share the run got; the CPU per payment is the steadier figure, and the
 * line under the table turns it into the most payments/s the cores could give each deployment.
 *
 * Idempotency races (after the rounds): BENCH_RACE_KEYS (50) keys, each fired as a burst of
 * BENCH_RACE_BURST (4) identical requests at once, alternating the API ports (both processes in
 * `split`), 4 bursts in flight. Spec §8: at most one of them runs (201); the others are answered
 * 409 idempotency_key_in_use while it runs, or its 201 replayed after; then one more request with
 * the key must be that 201 replayed. Every 201 of a key must be the same bytes.
 *
 * Correctness, exact: every request carries a unique tag in its metadata (`bench_req`; a race's
 * requests share their key's tag). The load stops (every request answered: nothing is in flight
 * at the check unless a client gave up on a request, which the ledger keeps as "unknown"), every
 * projection catches up to the head of the log (lag 0), then the log's PaymentCreated events, the
 * `payments` read model and the ledger of answers must agree:
 *   - every acknowledged request (201 with an id) has exactly one PaymentCreated, with its id and
 *     tag, and its row in `payments`;
 *   - no tag has two payments (nothing doubled), no payment lacks a tag of this run;
 *   - a request answered with an error created nothing; one with no answer ("unknown": a client
 *     time-out) created at most one (an unanswered request fails the run anyway: under this load
 *     every request must be answered);
 *   - the read model holds exactly the log's payments; a sample is read back with
 *     GET /payments/{id} through the other API process;
 *   - every race key has exactly one payment.
 * Anything lost, doubled or unexpected makes the run fail (exit 1).
 *
 * Env: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (3), BENCH_ROUNDS (3), BENCH_CLIENTS (16),
 * BENCH_RACE_KEYS (50), BENCH_RACE_BURST (4), BENCH_REDIS_URL (redis://127.0.0.1:6379),
 * BENCH_DATABASE_URL (admin URL of the PostgreSQL server).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CONFIG_VARIABLES } from '../libs/core/src';
import type { Database } from '../libs/database/src';
import { OpenedStore, openEventStore } from '../libs/eventstore/src';
import { projectionStatus } from '../libs/projections/src';
import { ALL_PROJECTORS } from '../libs/wiring/src';
import { BenchStore, openBenchStore } from './support/bench-store';
import { failOnErrors, runBench, saveResults } from './support/report';
import { benchNumbers } from './support/settings';

const { SECONDS, WARMUP_SECONDS, ROUNDS, CLIENTS, RACE_KEYS, RACE_BURST } = benchNumbers({ SECONDS: 10, WARMUP_SECONDS: 3, ROUNDS: 3, CLIENTS: 16, RACE_KEYS: 50, RACE_BURST: 4 });
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const ROOT = join(__dirname, '..');
/** A client gives up on a request after this long (its outcome is then unknown). */
const REQUEST_TIMEOUT_MS = 30_000;
/** How many payments of each deployment are read back through the API after the load. */
const READ_BACK_SAMPLE = 100;
const CORES = cpus().length;
const CLOCK_TICKS = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on Linux

const pct = (values: number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const median = (values: number[]): number => pct(values, 50);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------ child processes

/** A server of the deployment: a child process whose last output is kept for the error report. */
class Server {
  private output = '';

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-8_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
  }

  static start(name: string, entry: string, env: NodeJS.ProcessEnv): Server {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, entry)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    return new Server(name, child);
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** The last lines it wrote (warnings and errors: servers run with LOG_LEVEL=warn). */
  get log(): string {
    return this.output;
  }

  /** CPU seconds (user + system) this process has used so far. */
  cpuSeconds(): number {
    return cpuSecondsOf(this.child.pid!) ?? NaN;
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM'); // shutdown hooks: the store and Redis are closed cleanly
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

/** CPU seconds a process has used so far (user + system), from /proc; null once it is gone. */
function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime
  } catch {
    return null;
  }
}

/**
 * The PostgreSQL side of a deployment: CPU seconds of every backend connected to its database
 * (by pid), and the transactions committed there so far (pg_stat_database, flushed by the
 * backends at most once a second: approximate over a round).
 */
async function postgresSample(db: Database): Promise<{ cpu: Map<number, number>; xacts: number }> {
  const { rows } = await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const seconds = cpuSecondsOf(pid);
    if (seconds !== null) cpu.set(pid, seconds);
  }
  const stats = await db.query<{ n: string }>(`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`);
  return { cpu, xacts: Number(stats.rows[0].n) };
}

/** Machine-wide CPU ticks (busy, total) from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = values.map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: total - ticks[3] - (ticks[4] ?? 0), total }; // idle, iowait
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The service's environment for one server: this process's variables without any of the service's, then `env`. */
function serverEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  for (const name of CONFIG_VARIABLES) delete out[name];
  return { ...out, ...env };
}

/** The operator CLI, run to completion on the deployment's database: a simulated business and its secret key. */
async function createBusiness(env: NodeJS.ProcessEnv, name: string): Promise<string> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, 'apps/cli/src/main.ts'), 'businesses', 'create', '--name', name, '--simulated', '--json'], {
    cwd: ROOT,
    env: serverEnv({ DATABASE_URL: env.DATABASE_URL, WALLET_KEK: env.WALLET_KEK, LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`cli businesses create: exit ${code}\n${stderr}`);
  return (JSON.parse(stdout) as { keys: { type: string; secret: string }[] }).keys.find((k) => k.type === 'secret')!.secret;
}

// ------------------------------------------------------------------ HTTP

interface Answer {
  status: number;
  text: string;
  replayed: boolean;
  ms: number;
}

async function post(base: string, key: string, body: unknown, idempotencyKey?: string): Promise<Answer> {
  const t0 = performance.now();
  const response = await fetch(`${base}/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, text, replayed: response.headers.get('idempotent-replayed') === 'true', ms: performance.now() - t0 };
}

const paymentBody = (tag: string, seq: number) => ({ amount: 1_000 + (seq % 9_000), currency: 'USD', description: 'scale bench', metadata: { bench_req: tag } });
const paymentId = (answer: Answer): string => (JSON.parse(answer.text) as { data: { id: string } }).data.id;

// ------------------------------------------------------------------ deployments

/** What became of a request (or of a race key's burst), by its tag. */
interface Entry {
  outcome: 'acked' | 'refused' | 'unknown';
  id?: string;
  detail?: string;
}

interface RoundResult {
  round: number;
  payments: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  replays: number;
  /** CPU seconds used in the round by each server, by this process (the load generator) and by the deployment's PostgreSQL backends. */
  cpu: Record<string, number>;
  /** PostgreSQL transactions committed in the round per payment created (approximate: see postgresSample). */
  xactsPerPayment: number;
  /** CPU ms per payment created: the servers and PostgreSQL (`service`), and with the load generator (`all`). */
  cpuPerPayment: { service: number; all: number };
  machineBusy: number;
}

interface Deployment {
  key: 'one' | 'split';
  label: string;
  store: BenchStore;
  servers: Server[];
  /** The API processes' base URLs; the load balancer goes round them. */
  bases: string[];
  secretKey: string;
  opened: OpenedStore | null;
  ledger: Map<string, Entry>;
  raceTags: string[];
  rounds: RoundResult[];
  races: { fresh: number; replayed: number; inUse: number; followUps: number };
  checks: Record<string, number>;
  errors: string[];
  seq: number;
  /** Retries with an Idempotency-Key sent to the next process during the load, each checked. */
  replays: number;
}

async function startDeployment(key: Deployment['key']): Promise<Deployment> {
  const store = await openBenchStore('postgres', `scale_${key}`);
  const d: Deployment = {
    key,
    label: key === 'one' ? '(a) one process, ROLE=all' : '(b) 2 × ROLE=api + 1 worker',
    store,
    servers: [],
    bases: [],
    secretKey: '',
    opened: null,
    ledger: new Map(),
    raceTags: [],
    rounds: [],
    races: { fresh: 0, replayed: 0, inUse: 0, followUps: 0 },
    checks: {},
    errors: [],
    seq: 0,
    replays: 0,
  };
  try {
    // the CLI migrates the database and writes the business through the businesses projection
    d.secretKey = await createBusiness(store.env, `Scale ${key}`);
    const shared = { DATABASE_URL: store.env.DATABASE_URL, WALLET_KEK: store.env.WALLET_KEK, REDIS_URL, LOG_LEVEL: 'warn' };
    const api = async (name: string, role: string) => {
      const port = await freePort();
      d.servers.push(Server.start(name, 'apps/api/src/main.ts', serverEnv({ ...shared, PORT: String(port), ROLE: role })));
      d.bases.push(`http://127.0.0.1:${port}/api/v1`);
    };
    if (key === 'one') {
      await api('all', 'all');
    } else {
      d.servers.push(Server.start('worker', 'apps/worker/src/main.ts', serverEnv(shared)));
      await api('api-1', 'api');
      await api('api-2', 'api');
    }
    d.opened = await openEventStore({ databaseUrl: store.env.DATABASE_URL });
    for (const base of d.bases) await waitUntil(d, `${base} to answer`, async () => (await fetch(`${base}/health/live`).catch(() => null))?.ok === true);
    // the projections run (their checkpoint rows exist) before the first request waits for them
    await waitUntil(d, 'the projections to start', async () => {
      const { rows } = await d.opened!.db.query<{ n: string }>(`SELECT count(*) AS n FROM projection_checkpoints WHERE name = ANY($1::text[])`, [ALL_PROJECTORS.map((p) => p.name)]);
      return Number(rows[0].n) === ALL_PROJECTORS.length;
    });
    // one payment end to end through every API process
    for (const base of d.bases) await send(d, base, d.seq++, false, false);
    return d;
  } catch (error) {
    await stopDeployment(d);
    throw error;
  }
}

async function waitUntil(d: Deployment, what: string, ready: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    const dead = d.servers.find((s) => s.exited);
    if (dead) throw new Error(`${d.key}: ${dead.name} exited while waiting for ${what}:\n${dead.log}`);
    if (Date.now() > deadline) throw new Error(`${d.key}: gave up waiting for ${what}\n${d.servers.map((s) => `${s.name}: ${s.log}`).join('\n')}`);
    await sleep(200);
  }
}

async function stopDeployment(d: Deployment): Promise<void> {
  for (const server of d.servers) await server.stop();
  await d.opened?.close();
  await d.store.cleanup();
}

/**
 * One POST /payments, written into the ledger under its tag. With `withKey` it carries an
 * Idempotency-Key; with `replay`, once answered 201 it is sent again with the key to the next
 * API process, which must replay the very same answer. Resolves the creating request's answer.
 */
async function send(d: Deployment, base: string, seq: number, withKey: boolean, replay: boolean): Promise<Answer | null> {
  const tag = `${d.key}-${seq}`;
  const body = paymentBody(tag, seq);
  const idempotencyKey = withKey ? `key-${tag}` : undefined;
  d.ledger.set(tag, { outcome: 'unknown' });
  let answer: Answer;
  try {
    answer = await post(base, d.secretKey, body, idempotencyKey);
  } catch (error) {
    d.ledger.set(tag, { outcome: 'unknown', detail: error instanceof Error ? error.message : String(error) });
    d.errors.push(`${tag}: no answer (${error instanceof Error ? error.message : String(error)})`);
    return null;
  }
  if (answer.status !== 201 || answer.replayed) {
    d.ledger.set(tag, { outcome: 'refused', detail: `${answer.status} ${answer.text.slice(0, 200)}` });
    d.errors.push(`${tag}: answered ${answer.status}${answer.replayed ? ' (replayed)' : ''} ${answer.text.slice(0, 200)}`);
    return answer;
  }
  d.ledger.set(tag, { outcome: 'acked', id: paymentId(answer) });
  if (replay && idempotencyKey) {
    const other = d.bases[(d.bases.indexOf(base) + 1) % d.bases.length];
    d.replays++;
    const again = await post(other, d.secretKey, body, idempotencyKey).catch((error: unknown) => ({ status: 0, text: String(error), replayed: false, ms: 0 }));
    if (again.status !== 201 || !again.replayed || again.text !== answer.text) {
      d.errors.push(`${tag}: the retry with its Idempotency-Key was answered ${again.status}${again.replayed ? ' replayed' : ''}, not the first 201 replayed: ${again.text.slice(0, 200)}`);
    }
  }
  return answer;
}

/** BENCH_CLIENTS clients for `seconds`, round-robin over the API processes; the numbers of one round. */
async function load(d: Deployment, seconds: number, round: number): Promise<RoundResult> {
  let next = 0;
  let payments = 0;
  let replays = 0;
  const latencies: number[] = [];
  const cpuBefore = d.servers.map((s) => s.cpuSeconds());
  const benchBefore = process.cpuUsage();
  const machineBefore = machineTicks();
  const pgBefore = await postgresSample(d.opened!.db);
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) {
        const seq = d.seq++;
        const base = d.bases[next++ % d.bases.length];
        const replay = seq % 16 === 0;
        const answer = await send(d, base, seq, seq % 4 === 0, replay);
        if (answer?.status === 201) {
          payments++;
          latencies.push(answer.ms);
        }
        if (replay) replays++;
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const bench = process.cpuUsage(benchBefore);
  const machineAfter = machineTicks();
  const pgAfter = await postgresSample(d.opened!.db);
  const cpu: Record<string, number> = Object.fromEntries(d.servers.map((s, i) => [s.name, s.cpuSeconds() - cpuBefore[i]]));
  cpu.bench = (bench.user + bench.system) / 1e6;
  cpu.postgres = [...pgAfter.cpu].reduce((sum, [pid, seconds]) => sum + seconds - (pgBefore.cpu.get(pid) ?? 0), 0);
  return {
    round,
    payments,
    seconds: elapsed,
    rate: payments / elapsed,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    replays,
    cpu,
    xactsPerPayment: (pgAfter.xacts - pgBefore.xacts) / Math.max(1, payments),
    cpuPerPayment: {
      service: ((Object.values(cpu).reduce((a, b) => a + b, 0) - cpu.bench) * 1000) / Math.max(1, payments),
      all: (Object.values(cpu).reduce((a, b) => a + b, 0) * 1000) / Math.max(1, payments),
    },
    machineBusy: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
  };
}

/** Idempotency races: bursts of identical requests with one key, across the API processes at once. */
async function races(d: Deployment): Promise<void> {
  const one = async (i: number) => {
    const tag = `${d.key}-race-${i}`;
    const key = `race-${tag}`;
    const body = paymentBody(tag, i);
    d.raceTags.push(tag);
    d.ledger.set(tag, { outcome: 'unknown' });
    const answers = await Promise.all(
      Array.from({ length: RACE_BURST }, (_, j) => post(d.bases[(i + j) % d.bases.length], d.secretKey, body, key).catch((error: unknown) => ({ status: 0, text: String(error), replayed: false, ms: 0 }))),
    );
    const created = answers.filter((a) => a.status === 201);
    for (const a of answers) {
      if (a.status === 201) d.races[a.replayed ? 'replayed' : 'fresh']++;
      else if (a.status === 409 && a.text.includes('"idempotency_key_in_use"')) d.races.inUse++;
      else d.errors.push(`race ${tag}: answered ${a.status} ${a.text.slice(0, 200)}`);
    }
    if (created.filter((a) => !a.replayed).length > 1) d.errors.push(`race ${tag}: ${created.filter((a) => !a.replayed).length} requests ran (201 not replayed), expected one`);
    if (created.some((a) => a.text !== created[0].text)) d.errors.push(`race ${tag}: the 201 answers differ`);
    // after the burst, the key's answer is settled: one more request replays it
    const after = await post(d.bases[i % d.bases.length], d.secretKey, body, key).catch((error: unknown) => ({ status: 0, text: String(error), replayed: false, ms: 0 }));
    d.races.followUps++;
    if (after.status !== 201 || !after.replayed) d.errors.push(`race ${tag}: the request after the burst was answered ${after.status}${after.replayed ? ' replayed' : ''}, expected 201 replayed`);
    else if (created.length > 0 && after.text !== created[0].text) d.errors.push(`race ${tag}: the replay after the burst differs from the burst's 201`);
    const settled = created[0] ?? (after.status === 201 ? after : null);
    d.ledger.set(tag, settled ? { outcome: 'acked', id: paymentId(settled) } : { outcome: 'refused', detail: 'no 201 for the key' });
  };
  const parallel = 4;
  for (let i = 0; i < RACE_KEYS; i += parallel) await Promise.all(Array.from({ length: Math.min(parallel, RACE_KEYS - i) }, (_, j) => one(i + j)));
}

/** The load has stopped: wait until every projection has the whole log, then compare the log, the read model and the ledger. */
async function check(d: Deployment): Promise<void> {
  const db = d.opened!.db;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await projectionStatus(d.opened!.store, db, ALL_PROJECTORS);
    if (status.every((s) => s.lag === 0)) break;
    if (Date.now() > deadline) throw new Error(`${d.key}: projections still behind: ${JSON.stringify(status.map((s) => [s.name, s.lag]))}`);
    await sleep(100);
  }
  const events = (
    await db.query<{ stream_id: string; id: string; tag: string | null }>(
      `SELECT stream_id, data->>'payment_id' AS id, data->'metadata'->>'bench_req' AS tag FROM es_events WHERE event_type = 'PaymentCreated'`,
    )
  ).rows;
  const rows = (await db.query<{ id: string; tag: string | null }>(`SELECT id, metadata->>'bench_req' AS tag FROM payments`)).rows;
  const fail = (message: string) => d.errors.push(`${d.key}: ${message}`);

  const byTag = new Map<string, string[]>();
  const byId = new Map<string, number>();
  for (const e of events) {
    if (e.stream_id !== `payment-${e.id}`) fail(`PaymentCreated of ${e.id} in stream ${e.stream_id}`);
    byId.set(e.id, (byId.get(e.id) ?? 0) + 1);
    if (e.tag === null || !d.ledger.has(e.tag)) fail(`payment ${e.id} was made by no request of this run (tag ${e.tag})`);
    else byTag.set(e.tag, [...(byTag.get(e.tag) ?? []), e.id]);
  }
  for (const [id, n] of byId) if (n > 1) fail(`payment ${id}: ${n} PaymentCreated events`);

  let lost = 0;
  let doubled = 0;
  let phantom = 0;
  let unknownCreated = 0;
  let unknown = 0;
  let acked = 0;
  for (const [tag, entry] of d.ledger) {
    const ids = byTag.get(tag) ?? [];
    if (ids.length > 1) {
      doubled++;
      fail(`${tag}: ${ids.length} payments (${ids.join(', ')}) for one request`);
    }
    if (entry.outcome === 'acked') {
      acked++;
      if (!ids.includes(entry.id!)) {
        lost++;
        fail(`${tag}: acknowledged ${entry.id}, which the log does not have (it has ${ids.join(', ') || 'nothing'} for the tag)`);
      }
    } else if (entry.outcome === 'refused') {
      if (ids.length > 0) {
        phantom++;
        fail(`${tag}: answered ${entry.detail}, yet payment ${ids.join(', ')} exists`);
      }
    } else {
      unknown++;
      if (ids.length > 0) unknownCreated++;
    }
  }
  for (const tag of d.raceTags) if ((byTag.get(tag) ?? []).length !== 1) fail(`race ${tag}: ${(byTag.get(tag) ?? []).length} payments, expected exactly one`);

  // the read model: exactly the log's payments, each with its request's tag
  const eventTag = new Map(events.map((e) => [e.id, e.tag]));
  let missingRows = 0;
  const rowIds = new Set(rows.map((r) => r.id));
  for (const r of rows) {
    if (!eventTag.has(r.id)) fail(`row ${r.id} in payments has no PaymentCreated`);
    else if (eventTag.get(r.id) !== r.tag) fail(`row ${r.id}: tag ${r.tag}, the event says ${eventTag.get(r.id)}`);
  }
  for (const id of eventTag.keys()) {
    if (!rowIds.has(id)) {
      missingRows++;
      fail(`payment ${id} is in the log, not in the payments read model`);
    }
  }

  // a sample read back through the API, each from another process than the one that answered the POST in `split`
  const ackedEntries = [...d.ledger.entries()].filter(([, e]) => e.outcome === 'acked');
  const step = Math.max(1, Math.floor(ackedEntries.length / READ_BACK_SAMPLE));
  let readBack = 0;
  for (let i = 0; i < ackedEntries.length; i += step) {
    const [tag, entry] = ackedEntries[i];
    const response = await fetch(`${d.bases[(i + 1) % d.bases.length]}/payments/${entry.id}`, { headers: { authorization: `Bearer ${d.secretKey}` } });
    const payment = response.ok ? ((await response.json()) as { data: { id: string; metadata: Record<string, string> } }).data : null;
    if (!payment || payment.id !== entry.id || payment.metadata.bench_req !== tag) fail(`GET /payments/${entry.id}: ${response.status}, expected the payment of ${tag}`);
    readBack++;
  }
  d.checks = { requests: d.ledger.size, replays: d.replays, acked, events: events.length, rows: rows.length, lost, doubled, phantom, unknown, unknownCreated, missingRows, readBack };
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const load0 = loadavg()[0];
  const deployments: Deployment[] = [];
  try {
    for (const key of ['one', 'split'] as const) {
      process.stderr.write(`[bench] starting ${key} …\n`);
      deployments.push(await startDeployment(key));
    }
    for (let round = 1; round <= ROUNDS; round++) {
      // alternate who goes first, so that neither always runs right after the other
      const order = round % 2 === 1 ? deployments : [...deployments].reverse();
      for (const d of order) {
        await load(d, WARMUP_SECONDS, 0);
        const result = await load(d, SECONDS, round);
        d.rounds.push(result);
        process.stderr.write(
          `[bench] round ${round} ${d.key}: ${result.rate.toFixed(0)} payments/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, machine ${(result.machineBusy * 100).toFixed(0)}% busy, cpu ${Object.entries(result.cpu).map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ')}, ≈${result.xactsPerPayment.toFixed(1)} PostgreSQL transactions and ${result.cpuPerPayment.service.toFixed(1)} CPU ms (servers + PostgreSQL) per payment\n`,
        );
      }
    }
    for (const d of deployments) {
      await races(d);
      await check(d);
      process.stderr.write(`[bench] ${d.key}: ${JSON.stringify(d.checks)}, races ${JSON.stringify(d.races)}, errors ${d.errors.length}\n`);
    }
  } finally {
    for (const d of deployments) await stopDeployment(d);
  }

  console.log(
    `\nScale benchmark — ${new Date().toISOString()} — PostgreSQL + Redis, ${CLIENTS} clients creating payments (POST /payments; 1 in 4 with an Idempotency-Key, 1 in 16 replayed on the next process), ` +
      `${ROUNDS} rounds of ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, medians; Node ${process.version}, ${CORES} cores, load average before ${load0.toFixed(2)}\n`,
  );
  console.log('| deployment | payments/s | p50 ms | p99 ms | payments/s per round | machine busy | CPU s per round (median) | CPU ms per payment (servers + PostgreSQL) | PostgreSQL transactions per payment (≈) |');
  console.log('|---|---:|---:|---:|---|---:|---|---:|---:|');
  for (const d of deployments) {
    const names = Object.keys(d.rounds[0].cpu);
    const cpu = names.map((n) => `${n} ${median(d.rounds.map((r) => r.cpu[n])).toFixed(1)}`).join(', ');
    console.log(
      `| ${d.label} | ${median(d.rounds.map((r) => r.rate)).toFixed(0)} | ${median(d.rounds.map((r) => r.p50)).toFixed(1)} | ${median(d.rounds.map((r) => r.p99)).toFixed(1)} | ${d.rounds.map((r) => r.rate.toFixed(0)).join(', ')} | ${(median(d.rounds.map((r) => r.machineBusy)) * 100).toFixed(0)}% | ${cpu} | ${median(d.rounds.map((r) => r.cpuPerPayment.service)).toFixed(1)} | ${median(d.rounds.map((r) => r.xactsPerPayment)).toFixed(1)} |`,
    );
  }
  const [a, b] = deployments;
  // what the measured CPU cost per payment allows if the run had every core to itself (load generator included: it shares the machine)
  const bound = (d: Deployment) => ((CORES * 1000) / median(d.rounds.map((r) => r.cpuPerPayment.all))).toFixed(0);
  console.log(`\n(b) / (a): ${(median(b.rounds.map((r) => r.rate)) / median(a.rounds.map((r) => r.rate))).toFixed(2)}× the payments/s; CPU bound on ${CORES} cores (${CORES} × 1000 ms / CPU ms per payment with the load generator): (a) ≈ ${bound(a)}/s, (b) ≈ ${bound(b)}/s\n`);
  console.log('| deployment | requests | replays checked | acknowledged | PaymentCreated | payments rows | lost | doubled | error answered, yet created | no answer (created) | race keys: 201 ran / 201 replayed / 409 in use | read back via API | errors |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|');
  for (const d of deployments) {
    const c = d.checks;
    console.log(
      `| ${d.label} | ${c.requests} | ${c.replays} | ${c.acked} | ${c.events} | ${c.rows} | ${c.lost} | ${c.doubled} | ${c.phantom} | ${c.unknown} (${c.unknownCreated}) | ${RACE_KEYS}: ${d.races.fresh} / ${d.races.replayed} / ${d.races.inUse} | ${c.readBack} | ${d.errors.length} |`,
    );
  }
  saveResults('scale', {
    at: new Date().toISOString(),
    config: { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS, clients: CLIENTS, raceKeys: RACE_KEYS, raceBurst: RACE_BURST, node: process.version, loadAverageBefore: load0 },
    deployments: deployments.map((d) => ({ key: d.key, label: d.label, processes: d.servers.map((s) => s.name), rounds: d.rounds, races: d.races, checks: d.checks, errors: d.errors })),
  });
  failOnErrors(deployments.map((d) => ({ store: d.key, errors: d.errors })));
}

runBench(main);
