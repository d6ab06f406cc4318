/**
 * `npm run bench:api`: the API under load (issue 10, points 2, 3, 5, 6 and 8), per store, against
 * the one-process default as it ships: `node dist/apps/api/src/main.js` (ROLE=all: API,
 * projections, timers and webhook dispatcher; dist/ rebuilt first when a source is newer) in a
 * child process, so its RSS is its own. Each cell: autocannon in another child process,
 * BENCH_CONNECTIONS (16) connections, closed loop; a warm-up before the first round, then
 * BENCH_ROUNDS (3) rounds of BENCH_SECONDS (5) per cell, the cells interleaved within a round;
 * medians over the rounds. Cells:
 *   A. baseline: a bare node:http POST that INSERTs one row (a payment-sized jsonb) on the same
 *      database with the app's pool settings (bench/support/bare-server.ts; embedded: its own
 *      PGlite directory, one process owning a directory),
 *      vs POST /api/v1/payments (secret key, no reference, no Idempotency-Key): target ≥ 0.5× A;
 *   B. baselines: a bare node:http GET answering a real 25-payment page (~55 KB), and the app's
 *      own bare route GET /api/v1/health/live (no store, no key),
 *      vs GET /api/v1/payments?limit=25 (authenticated, 200 seeded payments): target ≥ 0.6× the
 *      bare GET route (the issue's measure), and GET /api/v1/business;
 *   projection lag while POST /payments arrive at a fixed rate (BENCH_LAG_RATE, 200/s, for
 *      BENCH_LAG_SECONDS, 10, open loop from this process; embedded: at most half its closed-loop
 *      create rate, which is below 200/s): a sampler takes the log's head every
 *      25 ms and times until every projection's committed checkpoint has passed it. PostgreSQL:
 *      read from the database with a pg client (SqlEventStore.headPosition, readCheckpoints);
 *      embedded (no other process can open the store): through GET /api/v1/health, whose queries
 *      queue behind the server's own, so an upper bound. Target p99 < 100 ms on PostgreSQL;
 *   the server's RSS (/proc/<pid>/status VmRSS every 100 ms): idle after start, after seeding
 *      and after the load, the peak in each cell, and the kernel's high-water mark (VmHWM).
 *      Target < 250 MB.
 * While a baseline is measured the app is paused (SIGSTOP) so its idle polling does not take
 * CPU from it; before each app cell every projection has caught up with the log.
 *
 * Env: BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (16),
 * BENCH_LAG_RATE (200), BENCH_LAG_SECONDS (10), BENCH_STORES (embedded,postgres),
 * BENCH_DATABASE_URL (admin URL of the PostgreSQL server), BENCH_LIVE_LOAD (1: the business that
 * creates payments is a live one, whose now needs no test-clock read, instead of a simulated one).
 * The app's own variables pass through: READ_CACHE_MB=0 measures GET /payments without the pages
 * a process keeps in memory.
 */
import { ChildProcess, execFile, execFileSync, fork, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openBenchStore } from './support/bench-store';
import { connectPostgres } from '../libs/database/src';
import { LogPosition, SqlEventStore, comparePositions, parsePosition } from '../libs/eventstore/src';
import { readCheckpoints } from '../libs/projections/src';
import { failOnErrors, runBench, saveResults } from './support/report';
import { benchNumbers, benchStores } from './support/settings';

const { SECONDS, ROUNDS, WARMUP_SECONDS, CONNECTIONS, LAG_RATE, LAG_SECONDS } = benchNumbers({ SECONDS: 5, ROUNDS: 3, WARMUP_SECONDS: 2, CONNECTIONS: 16, LAG_RATE: 200, LAG_SECONDS: 10 });
const STORES = benchStores();
const ROOT = join(__dirname, '..');

/** How `npm start` runs the service (package.json scripts.start: `[NAME=value …] node <flags> dist/…`). */
const START_SCRIPT: string[] = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
/** Its node flags (the heap limits, the baseline compiler). */
const START_NODE_FLAGS: string[] = START_SCRIPT.filter((word) => word.startsWith('--'));
/** The environment it sets before node (glibc's arena cap). */
const START_ENV: Record<string, string> = Object.fromEntries(
  START_SCRIPT.slice(0, START_SCRIPT.indexOf('node'))
    .map((word) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word))
    .filter((match) => match !== null)
    .map((match) => [match[1], match[2]]),
);
/** How long an idle RSS is sampled (its median is reported). */
const IDLE_MS = 1500;
const API = '/api/v1';
const PAYMENT_BODY = JSON.stringify({ amount: 2500, currency: 'USD', description: 'Bench order', metadata: { order_id: '1042' } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const pct = (values: number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const mb = (kb: number) => kb / 1024;

// ---------------------------------------------------------------------------------------------
// load: autocannon (closed loop, child process) and a fixed-rate open loop

interface Shot {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** connection errors and timeouts */
  errors: number;
  statusCodes: Record<string, number>;
}

interface Load {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

function autocannon(load: Load, seconds: number): Promise<Shot> {
  const args = [require.resolve('autocannon/autocannon.js'), '-c', String(CONNECTIONS), '-d', String(seconds), '-j', '-m', load.method];
  for (const [name, value] of Object.entries(load.headers)) args.push('-H', `${name}=${value}`);
  if (load.body !== undefined) args.push('-b', load.body);
  args.push(load.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err}`));
      const r = JSON.parse(out);
      const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, (s as { count: number }).count]));
      resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, statusCodes });
    });
  });
}

interface FixedRateResult {
  offered: number;
  achieved: number;
  /** from each request's scheduled time (open loop: a slow server's queue is counted) */
  latencies: number[];
  non2xx: number;
  errors: string[];
}

/**
 * `rate` requests a second for `seconds`, each sent at its scheduled time whatever the earlier
 * ones are doing (autocannon's --overallRate sends each second's quota back to back, then idles),
 * on at most CONNECTIONS keep-alive connections.
 */
async function fixedRate(load: Load, rate: number, seconds: number): Promise<FixedRateResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const url = new URL(load.url);
  const latencies: number[] = [];
  const errors: string[] = [];
  let non2xx = 0;
  const one = (due: number) =>
    new Promise<void>((resolve) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: load.method, headers: load.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - due);
          if (res.statusCode! < 200 || res.statusCode! >= 300) non2xx++;
          resolve();
        });
      });
      req.on('error', (error) => {
        errors.push(`fixed-rate ${load.method} ${url.pathname}: ${error.message}`);
        resolve();
      });
      req.end(load.body);
    });
  const pending: Promise<void>[] = [];
  const total = Math.round(rate * seconds);
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(one(due));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  return { offered: rate, achieved: latencies.length / elapsed, latencies, non2xx, errors };
}

// ---------------------------------------------------------------------------------------------
// processes: the app, the bare baseline server, RSS

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** VmRSS / VmHWM of a process, in kB. */
function procStatus(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** Samples a process's RSS every 100 ms, each sample labelled with the phase it was taken in. */
class RssSampler {
  phase = 'start';
  readonly samples: { ms: number; phase: string; mb: number }[] = [];
  private readonly t0 = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), 100);
  }

  sample(): number {
    let rss: number;
    try {
      rss = mb(procStatus(this.pid).rss);
    } catch {
      return NaN; // the process has ended
    }
    this.samples.push({ ms: Math.round(performance.now() - this.t0), phase: this.phase, mb: Math.round(rss * 10) / 10 });
    return rss;
  }

  /** The highest sample since sample number `from` (samples.length when a phase began). */
  peakSince(from: number): number {
    return Math.max(...this.samples.slice(from).map((s) => s.mb));
  }

  /** The median of the samples over `ms` (the process left alone meanwhile). */
  async idle(ms: number): Promise<number> {
    const values: number[] = [];
    const until = performance.now() + ms;
    while (performance.now() < until) {
      values.push(this.sample());
      await sleep(100);
    }
    return median(values);
  }

  hwm(): number {
    return mb(procStatus(this.pid).hwm);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** The service as `npm start` runs it, in a child process. */
class AppProcess {
  private stderr = '';
  private paused = false;
  readonly exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    readonly base: string,
  ) {
    child.stderr!.on('data', (c) => (this.stderr = (this.stderr + c).slice(-4000)));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Throws, with how it ended and the end of its stderr, when the process is gone. */
  assertAlive(during: string): void {
    const { exitCode, signalCode } = this.child;
    if (exitCode !== null || signalCode !== null) throw new Error(`the app ended (${exitCode !== null ? `exit code ${exitCode}` : signalCode}) during ${during}; its stderr: ${this.stderr || '(empty)'}`);
  }

  /** Started as `npm start` starts it: with the environment and node flags of package.json's start script. */
  static async start(env: NodeJS.ProcessEnv): Promise<AppProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, [...START_NODE_FLAGS, join(ROOT, 'dist/apps/api/src/main.js')], { env: { ...env, ...START_ENV, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    const app = new AppProcess(child, `http://127.0.0.1:${port}`);
    const deadline = Date.now() + 60_000;
    let exited = false;
    void app.exited.then(() => (exited = true));
    for (;;) {
      if (exited) throw new Error(`the app exited at start: ${app.stderr}`);
      const ok = await fetch(`${app.base}${API}/health/live`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return app;
      if (Date.now() > deadline) throw new Error(`the app did not answer within 60 s: ${app.stderr}`);
      await sleep(100);
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** SIGSTOP: no CPU taken while a baseline is measured (its sockets and connections stay open). */
  pause(): void {
    if (!this.paused) process.kill(this.pid, 'SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    if (this.paused) process.kill(this.pid, 'SIGCONT');
    this.paused = false;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.resume();
    this.child.kill('SIGTERM');
    const code = await Promise.race([this.exited, sleep(15_000).then(() => 'timeout' as const)]);
    if (code === 'timeout') {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}

async function startBareServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; base: string }> {
  const child = fork(join(__dirname, 'support', 'bare-server.ts'), [], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the bare server exited ${code}`)));
    child.once('message', (m: { port: number }) => resolve(m.port));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

async function stopBareServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.disconnect();
  await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
}

/** A business (simulated unless told) and its secret key, created as an operator would: the CLI (`businesses create`). */
async function createBusiness(env: NodeJS.ProcessEnv, name: string, simulated = true): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'dist/apps/cli/src/main.js'), 'businesses', 'create', '--name', name, ...(simulated ? ['--simulated'] : []), '--json'], { env });
  return (JSON.parse(stdout) as { keys: { type: string; secret: string }[] }).keys.find((k) => k.type === 'secret')!.secret;
}

// ---------------------------------------------------------------------------------------------
// projection lag, read from outside the server

interface LagProbe {
  head(): Promise<LogPosition | null>;
  /** Has every projection's committed checkpoint reached `position`? */
  passed(position: LogPosition): Promise<boolean>;
  pollMs: number;
  method: string;
  close(): Promise<void>;
}

const reached = (at: LogPosition | null, position: LogPosition) => at !== null && comparePositions(at, position) >= 0;

/** The projections the server runs, as its GET /health lists them. */
async function health(base: string): Promise<{ store: { head: string }; projections: { name: string; position: string }[] }> {
  const response = await fetch(`${base}${API}/health`);
  if (!response.ok) throw new Error(`GET /health: ${response.status}`);
  return ((await response.json()) as { data: { store: { head: string }; projections: { name: string; position: string }[] } }).data;
}

async function lagProbe(store: string, env: NodeJS.ProcessEnv, base: string): Promise<LagProbe> {
  if (store === 'postgres') {
    const names = (await health(base)).projections.map((p) => p.name);
    const db = connectPostgres(env.DATABASE_URL!, 2);
    const log = new SqlEventStore(db);
    return {
      head: () => log.headPosition(),
      passed: async (position) => [...(await readCheckpoints(db, names)).values()].every((c) => reached(c.position, position)),
      pollMs: 5,
      method: `pg client: es_events head vs projection_checkpoints of ${names.join(', ')}`,
      close: () => db.close(),
    };
  }
  return {
    head: async () => parsePosition((await health(base)).store.head),
    passed: async (position) => (await health(base)).projections.every((p) => reached(parsePosition(p.position), position)),
    pollMs: 10,
    method: 'GET /api/v1/health (head and committed checkpoints; its queries queue behind the load: an upper bound)',
    close: async () => undefined,
  };
}

/** Until every projection has passed the log's head (then a short pause): a cell starts with no backlog. */
async function settle(probe: LagProbe): Promise<void> {
  const head = await probe.head();
  const deadline = Date.now() + 60_000;
  while (head && !(await probe.passed(head))) {
    if (Date.now() > deadline) throw new Error('the projections did not catch up with the log within 60 s');
    await sleep(20);
  }
  await sleep(300);
}

/** Samples the lag until `stop` resolves: head, then time until every projection passed it; every 25 ms. */
async function sampleLag(probe: LagProbe, stop: Promise<unknown>, errors: string[]): Promise<number[]> {
  let sampling = true;
  const done = () => (sampling = false);
  stop.then(done, done);
  const lag: number[] = [];
  while (sampling) {
    const head = await probe.head();
    const t0 = performance.now();
    if (head) {
      while (!(await probe.passed(head))) {
        if (performance.now() - t0 > 10_000) {
          errors.push('projection lag: a head was not passed within 10 s');
          break;
        }
        await sleep(probe.pollMs);
      }
      lag.push(performance.now() - t0);
    }
    await sleep(25);
  }
  return lag;
}

// ---------------------------------------------------------------------------------------------
// the cells

type Target = 'app' | 'bare';
interface CellDef {
  name: string;
  target: Target;
  method: 'GET' | 'POST';
  path: string;
  key?: 'list' | 'load';
  body?: string;
  /** ratios to other cells of the same round; the first is the one with the target */
  vs?: string[];
  goal?: number;
}

const INSERT = 'A: bare node:http POST → 1 INSERT';
const PAGE = 'B: bare node:http GET → 25-payment JSON';
const LIVE = 'GET /health/live (app, bare route)';
const CELLS: CellDef[] = [
  { name: INSERT, target: 'bare', method: 'POST', path: '/insert', body: PAYMENT_BODY },
  { name: 'POST /payments', target: 'app', method: 'POST', path: `${API}/payments`, key: 'load', body: PAYMENT_BODY, vs: [INSERT], goal: 0.5 },
  { name: PAGE, target: 'bare', method: 'GET', path: '/page' },
  { name: LIVE, target: 'app', method: 'GET', path: `${API}/health/live`, vs: [PAGE] },
  { name: 'GET /payments?limit=25', target: 'app', method: 'GET', path: `${API}/payments?limit=25`, key: 'list', vs: [LIVE, PAGE], goal: 0.6 },
  { name: 'GET /business', target: 'app', method: 'GET', path: `${API}/business`, key: 'list', vs: [LIVE] },
];

interface CellResult {
  name: string;
  rounds: (Shot & { rssPeakMb: number | null })[];
}

interface StoreResult {
  store: string;
  cells: CellResult[];
  lag: { method: string; samples: number[]; load: Omit<FixedRateResult, 'latencies' | 'errors'> & { errors: number; p50: number; p99: number; rssPeakMb: number } };
  rss: { idleAfterStartMb: number; idleAfterSeedingMb: number; idleAfterLoadMb: number; idleAfterRestartMb: number; hwmMb: number; samples: RssSampler['samples'] };
  pageBytes: number;
  errors: string[];
}

async function benchStore(store: string): Promise<StoreResult> {
  const { dir, env: storeEnv, cleanup } = await openBenchStore(store, 'api');
  // the one-process default: no Redis, every role, the store openBenchStore chose
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: undefined, EVENTSTORE_URL: undefined, REDIS_URL: undefined, ROLE: undefined, METRICS_PORT: undefined, ...storeEnv };
  const errors: string[] = [];
  let app: AppProcess | null = null;
  let bare: ChildProcess | null = null;
  let rss: RssSampler | null = null;
  let probe: LagProbe | null = null;
  try {
    // a first start on a fresh store, as `npm start` on a new machine (embedded: the database is
    // created inside the process); the businesses come after it, from the CLI (embedded: through the
    // running server's admin endpoint)
    app = await AppProcess.start(env);
    rss = new RssSampler(app.pid);
    const idleAfterStartMb = await rss.idle(IDLE_MS);
    const keys = { list: await createBusiness(env, 'Bench list'), load: await createBusiness(env, 'Bench load', process.env.BENCH_LIVE_LOAD !== '1') };
    const base = app.base;
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });

    // the businesses reach the server's read model by its projection
    for (const key of Object.values(keys)) {
      const deadline = Date.now() + 30_000;
      while ((await fetch(`${base}${API}/business`, { headers: auth(key) })).status !== 200) {
        if (Date.now() > deadline) throw new Error('a business created by the CLI is not known to the server after 30 s');
        await sleep(100);
      }
    }
    rss.phase = 'seeding';
    let seeded = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = seeded++; i < 200; i = seeded++) {
          const created = await fetch(`${base}${API}/payments`, {
            method: 'POST',
            headers: { ...auth(keys.list), 'content-type': 'application/json' },
            body: JSON.stringify({ amount: 1_000 + i, currency: 'USD', description: `Seed ${i}`, metadata: { seq: String(i) } }),
          });
          if (created.status !== 201) throw new Error(`seeding payments: ${created.status} ${await created.text()}`);
        }
      }),
    );
    const page = await (await fetch(`${base}${API}/payments?limit=25`, { headers: auth(keys.list) })).text();
    const pageFile = join(dir, 'page.json');
    writeFileSync(pageFile, page);
    probe = await lagProbe(store, env, base);
    await settle(probe);
    // the statistics autovacuum gathers in production (this machine's server runs with autovacuum
    // off): without them the seeded tables are planned as production never plans them — the list
    // scanned payments_business_status and sorted every row, 3.5 ms instead of 0.4 ms
    if (env.DATABASE_URL) {
      const db = connectPostgres(env.DATABASE_URL);
      try {
        await db.query('ANALYZE');
      } finally {
        await db.close();
      }
    }
    rss.phase = 'idle';
    const idleAfterSeedingMb = await rss.idle(IDLE_MS);

    const bareServer = await startBareServer({ ...process.env, DATABASE_URL: env.DATABASE_URL, BARE_DATA_DIR: join(dir, 'bare'), BENCH_PAGE_FILE: pageFile });
    bare = bareServer.child;

    const cells: CellResult[] = CELLS.map((c) => ({ name: c.name, rounds: [] }));
    for (let round = -1; round < ROUNDS; round++) {
      for (const [i, cell] of CELLS.entries()) {
        app.resume();
        await settle(probe);
        if (cell.target === 'bare') app.pause();
        const load: Load = {
          url: `${cell.target === 'app' ? base : bareServer.base}${cell.path}`,
          method: cell.method,
          headers: { ...(cell.key ? auth(keys[cell.key]) : {}), ...(cell.body ? { 'content-type': 'application/json' } : {}) },
          body: cell.body,
        };
        rss.phase = round < 0 ? `warm-up ${cell.name}` : cell.name;
        const from = rss.samples.length;
        const shot = await autocannon(load, round < 0 ? WARMUP_SECONDS : SECONDS);
        app.assertAlive(rss.phase);
        const rssPeakMb = cell.target === 'app' ? rss.peakSince(from) : null;
        const label = round < 0 ? 'warm-up' : `round ${round + 1}`;
        if (shot.non2xx > 0 || shot.errors > 0) errors.push(`${cell.name} (${label}): ${shot.non2xx} non-2xx, ${shot.errors} errors/timeouts; status codes ${JSON.stringify(shot.statusCodes)}`);
        if (round >= 0) cells[i].rounds.push({ ...shot, rssPeakMb });
        process.stderr.write(`[bench] ${store} ${label} ${cell.name}: ${Math.round(shot.rps)} req/s${rssPeakMb === null ? '' : `, app RSS peak ${rssPeakMb.toFixed(0)} MB`}\n`);
      }
    }
    app.resume();

    // projection lag at a fixed rate of creates: the issue's rate on PostgreSQL whatever it costs;
    // the embedded store gets a rate it sustains (half its closed-loop rate when that is below),
    // else its queue would grow for the whole phase and the lag measure that queue
    await settle(probe);
    const closedLoop = median(cells.find((c) => c.name === 'POST /payments')!.rounds.map((r) => r.rps));
    const rate = store === 'postgres' || closedLoop >= LAG_RATE ? LAG_RATE : Math.max(1, Math.floor(closedLoop / 2));
    rss.phase = `lag at ${rate}/s`;
    const lagFrom = rss.samples.length;
    const loading = fixedRate({ url: `${base}${API}/payments`, method: 'POST', headers: { ...auth(keys.load), 'content-type': 'application/json' }, body: PAYMENT_BODY }, rate, LAG_SECONDS);
    const samples = await sampleLag(probe, loading, errors);
    const fixed = await loading;
    app.assertAlive(rss.phase);
    errors.push(...fixed.errors);
    if (fixed.non2xx > 0) errors.push(`fixed-rate POST /payments: ${fixed.non2xx} non-2xx`);
    process.stderr.write(`[bench] ${store} lag at ${rate}/s: p50 ${pct(samples, 50).toFixed(1)} ms, p99 ${pct(samples, 99).toFixed(1)} ms (${samples.length} samples)\n`);
    const lagRssPeak = rss.peakSince(lagFrom);
    await settle(probe);
    rss.phase = 'idle after load';
    const idleAfterLoadMb = await rss.idle(IDLE_MS);
    const hwmMb = rss.hwm();
    rss.stop();

    // the same store after a restart (no database to create any more)
    const lagMethod = probe.method;
    await probe.close();
    probe = null;
    await app.stop();
    app = await AppProcess.start(env);
    const restarted = new RssSampler(app.pid);
    const idleAfterRestartMb = await restarted.idle(IDLE_MS);
    restarted.stop();
    return {
      store,
      cells,
      lag: {
        method: lagMethod,
        samples,
        load: { offered: fixed.offered, achieved: fixed.achieved, non2xx: fixed.non2xx, errors: fixed.errors.length, p50: pct(fixed.latencies, 50), p99: pct(fixed.latencies, 99), rssPeakMb: lagRssPeak },
      },
      rss: { idleAfterStartMb, idleAfterSeedingMb, idleAfterLoadMb, idleAfterRestartMb, hwmMb, samples: rss.samples },
      pageBytes: Buffer.byteLength(page),
      errors,
    };
  } catch (error) {
    // a failure because the app died (a refused connection…) is reported as the app's death
    app?.assertAlive(`the bench, which failed with: ${error instanceof Error ? error.message : String(error)}`);
    throw error;
  } finally {
    rss?.stop();
    await probe?.close();
    if (bare) await stopBareServer(bare);
    await app?.stop();
    await cleanup();
  }
}

// ---------------------------------------------------------------------------------------------
// report

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? ` ${'-'.repeat(w)} ` : ` ${'-'.repeat(w - 1)}: `)).join('|')}|`, ...rows.map(line)].join('\n');
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const short = (name: string) => (name === INSERT ? 'A' : name === PAGE ? 'B' : name === LIVE ? '/health/live' : name);

function print(results: StoreResult[]): void {
  console.log(
    `\nAPI benchmark — ${new Date().toISOString()} — Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end; ${CONNECTIONS} connections (closed loop, autocannon), ${ROUNDS} rounds × ${SECONDS} s per cell after a ${WARMUP_SECONDS} s warm-up; medians over the rounds; "vs" = median of the per-round ratios\n`,
  );
  for (const r of results) {
    console.log(`### ${r.store}\n`);
    const rows = r.cells.map((cell) => {
      const def = CELLS.find((c) => c.name === cell.name)!;
      const ratios = (def.vs ?? []).map((vs) => {
        const base = r.cells.find((c) => c.name === vs)!;
        return { vs, ratio: median(cell.rounds.map((shot, i) => shot.rps / base.rounds[i].rps)) };
      });
      const peaks = cell.rounds.map((s) => s.rssPeakMb).filter((p): p is number => p !== null);
      return [
        cell.name,
        int(median(cell.rounds.map((s) => s.rps))),
        cell.rounds.map((s) => int(s.rps)).join(' / '),
        median(cell.rounds.map((s) => s.p50)).toFixed(1),
        median(cell.rounds.map((s) => s.p99)).toFixed(1),
        String(cell.rounds.reduce((a, s) => a + s.non2xx + s.errors, 0)),
        ratios.length ? ratios.map((x) => `${x.ratio.toFixed(2)}× ${short(x.vs)}`).join(', ') : 'baseline',
        def.goal ? `≥ ${def.goal}× ${short(def.vs![0])}: ${ratios[0].ratio >= def.goal ? 'met' : 'not met'}` : '',
        peaks.length ? Math.max(...peaks).toFixed(0) : '–',
      ];
    });
    const lag = r.lag;
    const lagP99 = pct(lag.samples, 99);
    rows.push([
      `projection lag, POST /payments at ${lag.load.offered}/s for ${LAG_SECONDS} s (open loop${lag.load.offered < LAG_RATE ? `; ½ the closed-loop create rate, ${LAG_RATE}/s is beyond this store` : ''})`,
      int(lag.load.achieved),
      `POST p50 ${lag.load.p50.toFixed(1)} / p99 ${lag.load.p99.toFixed(1)} ms`,
      pct(lag.samples, 50).toFixed(1),
      lagP99.toFixed(1),
      String(lag.load.non2xx + lag.load.errors),
      `${lag.samples.length} samples, max ${Math.max(...lag.samples).toFixed(1)} ms`,
      r.store === 'postgres' ? `p99 < 100 ms: ${lagP99 < 100 ? 'met' : 'not met'}` : '',
      lag.load.rssPeakMb.toFixed(0),
    ]);
    const peak = Math.max(r.rss.hwmMb, ...r.rss.samples.map((s) => s.mb));
    rows.push([
      'app idle: after first start / after seeding / after the load / after a restart',
      '',
      '',
      '',
      '',
      '',
      '',
      `peak < 250 MB: ${peak < 250 ? 'met' : 'not met'}`,
      `${r.rss.idleAfterStartMb.toFixed(0)} / ${r.rss.idleAfterSeedingMb.toFixed(0)} / ${r.rss.idleAfterLoadMb.toFixed(0)} / ${r.rss.idleAfterRestartMb.toFixed(0)}`,
    ]);
    console.log(table(['cell', 'req/s', 'req/s per round', 'p50 ms', 'p99 ms', 'non-2xx + errors', 'vs', 'target', 'app RSS MB (peak)'], rows));
    console.log('');
    console.log(
      `- app: \`node dist/apps/api/src/main.js\` (ROLE=all, one process) in a child process, first started on a fresh store; RSS = its VmRSS every 100 ms; its kernel high-water mark (VmHWM) after the load ${r.rss.hwmMb.toFixed(0)} MB; "after a restart": a second process on the same store`,
    );
    console.log(`- A and B: bench/support/bare-server.ts (plain node:http${r.store === 'embedded' ? ', its own PGlite directory' : ', same database, same pool settings'}); B's page is the app's own, ${int(r.pageBytes)} bytes`);
    console.log(`- POST /payments: a ${process.env.BENCH_LIVE_LOAD === '1' ? 'live' : 'simulated'} business's secret key (BENCH_LIVE_LOAD)`);
    console.log(`- lag: ${lag.method}; POST latency from each request's scheduled time`);
    console.log(
      `- GET /payments?limit=25: ${process.env.READ_CACHE_MB === '0' ? 'no page kept (READ_CACHE_MB=0): every request reads the page from the database' : `pages kept in memory (READ_CACHE_MB=${process.env.READ_CACHE_MB || '8, the default'}): nothing is written to the list's business during the cell, so after its first request every page comes from memory; READ_CACHE_MB=0 measures the read`}`,
    );
    console.log('');
  }
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'ensure-built.js')], { stdio: 'inherit' });
  const results: StoreResult[] = [];
  for (const store of STORES) results.push(await benchStore(store));
  print(results);
  saveResults(`api-${STORES.join('-')}`, results);
  failOnErrors(results);
}

runBench(main);
