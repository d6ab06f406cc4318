/**
 * `npm run bench:profile`: where the time of one POST /payments and one GET /payments?limit=25
 * goes (issue 10, point 1), per store, with the app in-process:
 *   1. warm-up: BENCH_WARMUP (300) POST /payments and as many GET /payments?limit=25;
 *   2. query counts: every SQL statement (and transaction) one request causes, wrapped at the
 *      drivers (pg's Client.prototype.query, PGlite's query/exec), so the event store, read
 *      models, checkpoints, timers and idempotency are all seen, whichever Database path they
 *      take. Split into "in the request" (before the server ends its response; of those, the
 *      ones on the request's own async chain vs background work such as projections) and
 *      "after the response" (a BENCH_WINDOW_MS (400) window, less what the same window counts
 *      when idle: the subscriptions' and timers' polling). Each statement is labelled by kind
 *      (verb + table, prepared name) and by its caller (the innermost app frames of its stack);
 *   2b. the same count under load: every statement while BENCH_REQUESTS requests of each kind run
 *      at concurrency 16 (bench:api's load) and the settling window after them, net of idle
 *      polling, per request: what a request costs at throughput, projection batches included;
 *   3. wall time per step at concurrency 1: key async functions wrapped with performance.now()
 *      (inclusive times, request chain only: nested steps are included in their parents);
 *   4. CPU profiles (node:inspector Profiler, 100 µs sampling) over BENCH_REQUESTS (500)
 *      requests of each kind (POST with and without an Idempotency-Key, GET) at concurrency 1 and 16, written to bench/results/*.cpuprofile
 *      (open in Chrome DevTools or speedscope); each sample's self time is given to the step of
 *      the innermost stack frame whose file (or, in the event store, function) belongs to one.
 * The load generator (node:http with a keep-alive agent) runs in the same process: its frames
 * are counted as "bench client" and left out of the server's CPU per request.
 *
 * Env: BENCH_STORES (embedded,postgres), BENCH_REQUESTS (500), BENCH_WARMUP (300),
 * BENCH_COUNT_RUNS (20), BENCH_WINDOW_MS (400), BENCH_DATABASE_URL.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest, IncomingMessage, ServerResponse } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { Profiler } from 'node:inspector';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ValidationPipe } from '@nestjs/common';
import { Client } from 'pg';
import { openBenchStore } from './support/bench-store';
import { BusinessService } from '../libs/businesses/src';
import { DATABASE, loadConfig } from '../libs/core/src';
import { Database } from '../libs/database/src';
import { CommandRunner, SqlEventStore } from '../libs/eventstore/src';
import { SqlIdempotencyStore } from '../libs/idempotency/src';
import { BusinessClock, CreatePaymentHandler, PaymentStreams, PaymentsProcessManager, PaymentsReadModel } from '../libs/payments/src';
import { ProjectionRunner } from '../libs/projections/src';
import { TimerStore } from '../libs/timers/src';
import { createApiApp } from '../apps/api/src/bootstrap';
import { runBench, saveResults } from './support/report';
import { benchNumbers, benchStores } from './support/settings';

const STORES = benchStores();
const { REQUESTS, WARMUP, COUNT_RUNS, WINDOW_MS } = benchNumbers({ REQUESTS: 500, WARMUP: 300, COUNT_RUNS: 20, WINDOW_MS: 400 });
const ROOT = join(__dirname, '..');
const RESULTS = join(__dirname, 'results');

// ---------------------------------------------------------------------------------------------
// statements: counted at the drivers

interface RequestContext {
  id: number;
}
const requestContext = new AsyncLocalStorage<RequestContext>();
/** Who called the Database (its query or transaction): the driver call may run after a queue or a pool wait, off the caller's stack. */
const databaseCaller = new AsyncLocalStorage<string>();

type Phase = 'idle' | 'request' | 'after';
interface Tally {
  /** kind → count */
  kinds: Map<string, number>;
  /** kind → caller → count */
  callers: Map<string, Map<string, number>>;
  /** kind → summed ms from the driver call to its result (embedded: ≈ CPU; postgres: the round trip) */
  ms: Map<string, number>;
}
const newTally = (): Tally => ({ kinds: new Map(), callers: new Map(), ms: new Map() });

const counting = {
  on: false,
  withCallers: false,
  phase: 'idle' as Phase,
  /** phase → 'request chain' | 'background' → tally */
  tallies: new Map<string, Tally>(),
};

function tally(bucket: string): Tally {
  let t = counting.tallies.get(bucket);
  if (!t) counting.tallies.set(bucket, (t = newTally()));
  return t;
}

/** "SELECT es_events", "INSERT payments", "BEGIN", … (+ the prepared statement's name). */
export function statementKind(text: string, name?: string): string {
  const sql = text.replace(/--[^\n]*/g, ' ').replace(/\s+/g, ' ').trim();
  const verb = (/^\w+/.exec(sql)?.[0] ?? '?').toUpperCase();
  let table = '';
  const find = (re: RegExp) => re.exec(sql)?.[1] ?? '';
  if (verb === 'INSERT') table = find(/INSERT INTO ([\w."]+)/i);
  else if (verb === 'UPDATE') table = find(/^UPDATE ([\w."]+)/i);
  else if (verb === 'DELETE') table = find(/DELETE FROM ([\w."]+)/i);
  else if (verb === 'SELECT') table = find(/ FROM ([\w."]+)/i) || (find(/^SELECT ([\w.]+)\(/i) ? `${find(/^SELECT ([\w.]+)\(/i)}()` : '');
  else if (verb === 'WITH') table = [find(/INSERT INTO ([\w."]+)/i), find(/UPDATE ([\w."]+) SET/i), find(/DELETE FROM ([\w."]+)/i), find(/ FROM ([\w."]+)/i)].filter(Boolean).slice(0, 2).join('/');
  return `${verb}${table ? ` ${table}` : ''}${name ? ` [${name}]` : ''}`;
}

/** The innermost app frames (libs/, apps/) of the current stack, outside libs/database. */
function callerOf(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames: string[] = [];
  for (const line of stack.split('\n').slice(1)) {
    const m = /at (?:async )?(?:(\S+) \()?(?:file:\/\/)?([^():]+):\d+:\d+\)?$/.exec(line.trim());
    if (!m) continue;
    const file = m[2];
    const rel = file.startsWith(ROOT) ? file.slice(ROOT.length + 1) : '';
    if (!/^(libs|apps)\//.test(rel) || rel.startsWith('libs/database/')) continue;
    const label = `${m[1] ?? '<anonymous>'}`;
    if (frames[frames.length - 1] !== label) frames.push(label);
    if (frames.length === 3) break;
  }
  return frames.join(' ← ') || '(no app frame)';
}

/** Counts one statement; returns what to call when it has finished (to add its duration). */
function record(text: string, name?: string): (() => void) | null {
  if (!counting.on) return null;
  const kind = statementKind(text, name);
  const chain = counting.phase === 'idle' ? 'idle' : `${counting.phase}:${requestContext.getStore() ? 'request chain' : 'background'}`;
  const t = tally(chain);
  t.kinds.set(kind, (t.kinds.get(kind) ?? 0) + 1);
  if (counting.withCallers) {
    let caller = callerOf();
    if (caller === '(no app frame)') caller = databaseCaller.getStore() ?? caller;
    let byCaller = t.callers.get(kind);
    if (!byCaller) t.callers.set(kind, (byCaller = new Map()));
    byCaller.set(caller, (byCaller.get(caller) ?? 0) + 1);
  }
  const t0 = performance.now();
  return () => t.ms.set(kind, (t.ms.get(kind) ?? 0) + performance.now() - t0);
}

const settle = (out: unknown, done: (() => void) | null): unknown => {
  if (done && out && typeof (out as Promise<unknown>).then === 'function') (out as Promise<unknown>).then(done, done);
  return out;
};

/** The Database's query and transaction remember their caller for the statements they cause. */
function wrapDatabase(db: Database): void {
  const target = db as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['query', 'transaction', 'exec'] as const) {
    const original = target[method].bind(db);
    target[method] = (...args: unknown[]) => (counting.on && counting.withCallers ? databaseCaller.run(`${method === 'transaction' ? 'tx: ' : ''}${callerOf()}`, () => original(...args)) : original(...args));
  }
}

function wrapPg(): void {
  const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0];
    let done: (() => void) | null = null;
    if (typeof config === 'string') done = record(config);
    else if (config && typeof config === 'object' && 'text' in config) done = record(String((config as { text: unknown }).text), (config as { name?: string }).name);
    const callback = args[args.length - 1];
    if (done && typeof callback === 'function') {
      // the pool's path: a callback, no promise
      const finish = done;
      args[args.length - 1] = (...result: unknown[]) => {
        finish();
        return (callback as (...r: unknown[]) => unknown)(...result);
      };
      done = null;
    }
    return settle(original.apply(this, args), done);
  };
}

function wrapPglite(db: Database): void {
  const pglite = (db as unknown as { pglite?: Record<string, unknown> }).pglite;
  if (!pglite) throw new Error('the embedded Database has no pglite field: the bench must learn where it went');
  for (const method of ['query', 'exec'] as const) {
    const original = pglite[method] as (...args: unknown[]) => unknown;
    pglite[method] = function (this: unknown, ...args: unknown[]) {
      const done = record(String(args[0]));
      return settle(original.apply(this, args), done);
    };
  }
}

// ---------------------------------------------------------------------------------------------
// wall time per step: key async functions wrapped

const stepTiming = { on: false, totals: new Map<string, { ms: number; calls: number }>() };

function timeMethod(proto: object, method: string, label: string): void {
  const target = proto as Record<string, unknown>;
  const original = target[method];
  if (typeof original !== 'function') throw new Error(`no method ${method} to time for ${label}`);
  target[method] = function (this: unknown, ...args: unknown[]) {
    if (!stepTiming.on || !requestContext.getStore()) return (original as (...a: unknown[]) => unknown).apply(this, args);
    const t0 = performance.now();
    const add = () => {
      const s = stepTiming.totals.get(label) ?? { ms: 0, calls: 0 };
      s.ms += performance.now() - t0;
      s.calls++;
      stepTiming.totals.set(label, s);
    };
    const out = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (out && typeof (out as Promise<unknown>).then === 'function') return (out as Promise<unknown>).finally(add);
    add();
    return out;
  };
}

function wrapSteps(): void {
  timeMethod(BusinessService.prototype, 'authenticate', 'auth: BusinessService.authenticate');
  timeMethod(ValidationPipe.prototype, 'transform', 'validation: ValidationPipe.transform');
  timeMethod(SqlIdempotencyStore.prototype, 'begin', 'idempotency: begin');
  timeMethod(SqlIdempotencyStore.prototype, 'complete', 'idempotency: complete');
  timeMethod(CreatePaymentHandler.prototype, 'execute', 'handler: CreatePaymentHandler.execute');
  timeMethod(BusinessClock.prototype, 'now', '  business clock: now');
  timeMethod(PaymentStreams.prototype, 'decidePayment', '  decide+append: PaymentStreams.decidePayment');
  timeMethod(CommandRunner.prototype, 'run', '    CommandRunner.run');
  timeMethod(CommandRunner.prototype, 'read', '      read stream: CommandRunner.read');
  timeMethod(SqlEventStore.prototype, 'append', '      append: SqlEventStore.append');
  timeMethod(PaymentsProcessManager.prototype, 'settle', '  process manager: settle');
  timeMethod(TimerStore.prototype, 'schedule', '    timers: TimerStore.schedule');
  timeMethod(CommandRunner.prototype, 'waitFor', '  wait for read models: CommandRunner.waitFor');
  timeMethod(ProjectionRunner.prototype, 'waitFor', '    ProjectionRunner.waitFor');
  timeMethod(PaymentsReadModel.prototype, 'getPayment', 'read model: getPayment');
  timeMethod(PaymentsReadModel.prototype, 'listPayments', 'read model: listPayments');
}

// ---------------------------------------------------------------------------------------------
// CPU profile → steps

interface Rule {
  step: string;
  test: (url: string, fn: string) => boolean;
}
const has = (...parts: string[]) => (url: string) => parts.some((p) => url.includes(p));
const RULES: Rule[] = [
  { step: 'bench client', test: (url) => url.includes('/bench/') || url.includes('node:_http_client') || url.includes('node:_http_agent') },
  { step: 'auth', test: has('/apps/api/src/auth/', '/libs/businesses/') },
  { step: 'idempotency', test: has('/libs/idempotency/', 'idempotency.interceptor') },
  { step: 'rate limit', test: has('/libs/rate-limit/', 'rate-limit.guard') },
  { step: 'validation', test: has('/node_modules/class-validator/', '/node_modules/class-transformer/', '/libs/http/src/validation', '/libs/http/src/json-body', '/libs/http/src/text-safety', 'input-rules', 'list-payments-query', '/node_modules/validator/', 'libphonenumber') },
  { step: 'wait for read models', test: (url, fn) => (url.includes('/libs/projections/src/projection-runner') && fn.includes('waitFor')) || (url.includes('command-runner') && fn.includes('waitFor')) },
  { step: 'process manager', test: has('/libs/payments/src/app/process-manager', '/libs/payments/src/app/payment-timers', '/libs/payments/src/domain/checkout-to-payment') },
  { step: 'timers', test: has('/libs/timers/') },
  { step: 'projections', test: (url) => /projector|\/libs\/projections\/|polling-subscription|\/libs\/webhooks\//.test(url) },
  { step: 'event store: read stream', test: (url, fn) => url.includes('/libs/eventstore/src/sql/') && /readStream|lastRevision|toRecordedEvent/.test(fn) },
  { step: 'event store: append', test: (url, fn) => url.includes('/libs/eventstore/') && /append|resolveRejected|anyIdStored/i.test(fn) },
  { step: 'event store: log reads (subscriptions)', test: (url, fn) => url.includes('/libs/eventstore/src/sql/') && /readAll|readRows|subscriptionRead|headPosition|behind/i.test(fn) },
  { step: 'event store: other', test: has('/libs/eventstore/') },
  { step: 'deciding', test: has('/libs/payments/src/domain/', '/libs/domain/', '/libs/money/') },
  { step: 'rendering', test: has('/libs/payments/src/read/payment-view', '/libs/payments/src/read/checkout-view', '/libs/payments/src/read/receipt-view', '/libs/http/src/pagination', '/node_modules/fastify/lib/reply', 'fast-json-stringify', '/node_modules/secure-json-parse/') },
  { step: 'read model query', test: has('/libs/payments/src/read/') },
  { step: 'use case (handler)', test: has('/libs/payments/src/', '/apps/api/src/payments/') },
  { step: 'logging / metrics', test: has('/libs/http/src/logging', '/node_modules/pino', 'sonic-boom', '/node_modules/prom-client/', 'wiring/src/metrics') },
  { step: 'driver: pg', test: has('/node_modules/pg/', '/node_modules/pg-protocol/', '/node_modules/pg-pool/', '/node_modules/pg-types/', '/node_modules/postgres-', '/node_modules/pgpass/', '/node_modules/buffer-writer/', '/node_modules/packet-reader/') },
  { step: 'driver: PGlite', test: (url) => url.includes('/node_modules/@electric-sql/') || url.startsWith('wasm://') },
  { step: 'database wrapper', test: has('/libs/database/') },
  { step: 'framework: nest/cqrs/rxjs', test: has('/node_modules/@nestjs/', '/node_modules/rxjs/', '/node_modules/reflect-metadata/', '/node_modules/tslib/') },
  { step: 'framework: fastify/http', test: (url) => /\/node_modules\/(fastify|@fastify|find-my-way|avvio|light-my-request|fast-querystring|fast-decode-uri-component|toad-cache|process-warning|abstract-logging)\//.test(url) || url.includes('node:_http_server') || url.includes('/libs/http/src/') || url.includes('/apps/api/src/') },
  { step: 'swc-node / source maps', test: has('/node_modules/@swc-node/', '/node_modules/@swc/', 'source-map-support') },
];
const SPECIAL = new Map<string, string>(Object.entries({ '(garbage collector)': 'GC', '(idle)': 'idle', '(program)': 'program (V8/native, no JS stack)', '(root)': 'other' }));

interface StepCpu {
  step: string;
  ms: number;
}

function stepsOf(profile: Profiler.Profile): { steps: Map<string, number>; totalMs: number; idleMs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stepOfNode = new Map<number, string>();
  const resolve = (id: number): string => {
    const cached = stepOfNode.get(id);
    if (cached) return cached;
    const leaf = byId.get(id)!;
    let step: string | undefined = leaf.callFrame.url ? undefined : SPECIAL.get(leaf.callFrame.functionName);
    if (!step) {
      for (let at: number | undefined = id; at !== undefined && !step; at = parent.get(at)) {
        const { url, functionName } = byId.get(at)!.callFrame;
        if (!url && !functionName) continue;
        step = RULES.find((r) => r.test(url, functionName))?.step;
      }
      if (!step) {
        const url = leaf.callFrame.url;
        step = url.startsWith('node:') ? 'other: node internals (I/O, timers, streams)' : url ? 'other' : 'other: native';
      }
    }
    stepOfNode.set(id, step);
    return step;
  };
  const steps = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const ms = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
    const step = resolve(samples[i]);
    steps.set(step, (steps.get(step) ?? 0) + ms);
  }
  const idleMs = steps.get('idle') ?? 0;
  const totalMs = [...steps.values()].reduce((a, b) => a + b, 0);
  return { steps, totalMs, idleMs };
}

// ---------------------------------------------------------------------------------------------
// requests

interface Target {
  port: number;
  key: string;
}
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function send(target: Target, method: 'POST' | 'GET', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<number> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: target.port,
        method,
        path: `/api/v1${path}`,
        agent,
        headers: { authorization: `Bearer ${target.key}`, ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}), ...headers },
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${path}: ${res.statusCode} ${Buffer.concat(chunks).toString()}`));
          else resolve(res.statusCode ?? 0);
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

let seq = 0;
type Kind = 'POST /payments' | 'POST /payments + Idempotency-Key' | 'GET /payments?limit=25';
const KINDS: Kind[] = ['POST /payments + Idempotency-Key', 'POST /payments', 'GET /payments?limit=25'];

function one(target: Target, kind: Kind): Promise<number> {
  if (kind === 'GET /payments?limit=25') return send(target, 'GET', '/payments?limit=25');
  const n = ++seq;
  const body = { amount: 1_000 + (n % 5000), currency: 'USD', description: `Profile ${n}`, metadata: { seq: String(n) } };
  return send(target, 'POST', '/payments', body, kind === 'POST /payments' ? {} : { 'idempotency-key': randomUUID() });
}

async function many(target: Target, kind: Kind, count: number, concurrency: number, latencies?: number[]): Promise<void> {
  let left = count;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left--;
        const t0 = performance.now();
        await one(target, kind);
        latencies?.push(performance.now() - t0);
      }
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pct = (values: number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

// ---------------------------------------------------------------------------------------------

interface KindCounts {
  kind: Kind;
  runs: number;
  /** per request, by kind of statement: before the response on the request's chain / background; after it (net of idle) */
  perRequest: { kind: string; requestChain: number; backgroundBefore: number; after: number; msBeforeResponse: number; callers: Record<string, number> }[];
  totals: { requestChain: number; backgroundBefore: number; after: number; transactionsInRequest: number; transactionsAfter: number };
  idlePerSecond: Record<string, number>;
  /** process CPU per second with no requests (the polling loops) */
  idleCpuMsPerSecond: number;
}

interface CpuRun {
  kind: Kind;
  concurrency: number;
  requests: number;
  wallMs: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** process.cpuUsage (user+system) over the run, per request (includes the bench client) */
  processCpuMsPerRequest: number;
  /** postgres: CPU of this database's server backends (/proc, 10 ms ticks) per request; null on embedded */
  databaseServerCpuMsPerRequest: number | null;
  /** profiled CPU (not idle), bench client excluded, per request */
  serverCpuMsPerRequest: number;
  steps: (StepCpu & { pct: number; msPerRequest: number })[];
  profile: string;
}

interface StoreResult {
  store: string;
  counts: KindCounts[];
  underLoad: LoadCounts[];
  timings: { kind: Kind; requests: number; p50: number; p90: number; steps: { step: string; msPerRequest: number; callsPerRequest: number }[] }[];
  cpu: CpuRun[];
  rssPeakMb: number;
}

async function countQueries(target: Target, kind: Kind, idle: Map<string, number>, idleCpuMsPerSecond: number): Promise<KindCounts> {
  counting.tallies.clear();
  counting.withCallers = true;
  counting.on = true;
  let requestMs = 0;
  for (let i = 0; i < COUNT_RUNS; i++) {
    counting.phase = 'request';
    const t0 = performance.now();
    responseEnded = () => {
      counting.phase = 'after';
      requestMs += performance.now() - t0;
    };
    await one(target, kind);
    await sleep(WINDOW_MS);
    counting.phase = 'idle';
    responseEnded = null;
  }
  counting.on = false;
  const chain = counting.tallies.get('request:request chain') ?? newTally();
  const bgBefore = counting.tallies.get('request:background') ?? newTally();
  const after = [counting.tallies.get('after:request chain') ?? newTally(), counting.tallies.get('after:background') ?? newTally()];
  const idleWindow = (k: string) => ((idle.get(k) ?? 0) * WINDOW_MS) / 1000;
  const idleDuringRequests = (k: string) => ((idle.get(k) ?? 0) * requestMs) / COUNT_RUNS / 1000;
  const all = new Set<string>([...chain.kinds.keys(), ...bgBefore.kinds.keys(), ...after.flatMap((t) => [...t.kinds.keys()])]);
  const round = (x: number) => Math.round(x * 10) / 10;
  const perRequest = [...all].map((k) => {
    const callers: Record<string, number> = {};
    for (const [bucket, t] of [
      ['request', chain],
      ['bg-before', bgBefore],
      ['after', after[0]],
      ['after(bg)', after[1]],
    ] as const)
      for (const [caller, n] of t.callers.get(k) ?? []) callers[`${bucket}: ${caller}`] = round(n / COUNT_RUNS);
    return {
      kind: k,
      requestChain: round((chain.kinds.get(k) ?? 0) / COUNT_RUNS),
      backgroundBefore: round(Math.max(0, (bgBefore.kinds.get(k) ?? 0) / COUNT_RUNS - idleDuringRequests(k))),
      after: round(Math.max(0, after.reduce((a, t) => a + (t.kinds.get(k) ?? 0), 0) / COUNT_RUNS - idleWindow(k))),
      msBeforeResponse: Math.round((100 * ((chain.ms.get(k) ?? 0) + (bgBefore.ms.get(k) ?? 0))) / COUNT_RUNS) / 100,
      callers,
    };
  });
  perRequest.sort((a, b) => b.requestChain + b.backgroundBefore + b.after - (a.requestChain + a.backgroundBefore + a.after));
  const sum = (f: (r: (typeof perRequest)[number]) => number) => round(perRequest.reduce((a, r) => a + f(r), 0));
  const begins = (f: (r: (typeof perRequest)[number]) => number) => round(perRequest.filter((r) => r.kind.startsWith('BEGIN')).reduce((a, r) => a + f(r), 0));
  return {
    kind,
    runs: COUNT_RUNS,
    perRequest,
    totals: {
      requestChain: sum((r) => r.requestChain),
      backgroundBefore: sum((r) => r.backgroundBefore),
      after: sum((r) => r.after),
      transactionsInRequest: begins((r) => r.requestChain + r.backgroundBefore),
      transactionsAfter: begins((r) => r.after),
    },
    idlePerSecond: Object.fromEntries(idle),
    idleCpuMsPerSecond,
  };
}

/**
 * Every statement the process runs per request while BENCH_REQUESTS requests of one kind run at
 * concurrency 16 (the load of bench:api), and the settling window after them, net of idle
 * polling over the same time: under load the subscriptions read and project batches, so this is
 * what a request costs in statements at throughput, where countQueries shows one request alone.
 */
async function countUnderLoad(target: Target, kind: Kind, idle: Map<string, number>): Promise<LoadCounts> {
  counting.tallies.clear();
  counting.withCallers = false;
  counting.phase = 'request';
  counting.on = true;
  const t0 = performance.now();
  await many(target, kind, REQUESTS, 16);
  await sleep(WINDOW_MS);
  const seconds = (performance.now() - t0) / 1000;
  counting.on = false;
  const counted = new Map<string, number>();
  for (const t of counting.tallies.values()) for (const [k, n] of t.kinds) counted.set(k, (counted.get(k) ?? 0) + n);
  const perRequest = [...counted]
    .map(([k, n]) => ({ kind: k, n: Math.max(0, n - (idle.get(k) ?? 0) * seconds) / REQUESTS }))
    .filter((r) => r.n >= 0.005)
    .sort((a, b) => b.n - a.n);
  return { kind, concurrency: 16, requests: REQUESTS, perRequest, total: perRequest.reduce((a, r) => a + r.n, 0) };
}

interface LoadCounts {
  kind: Kind;
  concurrency: number;
  requests: number;
  perRequest: { kind: string; n: number }[];
  total: number;
}

async function idleRate(): Promise<{ rate: Map<string, number>; cpuMsPerSecond: number }> {
  counting.tallies.clear();
  counting.withCallers = false;
  counting.phase = 'idle';
  counting.on = true;
  const seconds = Math.max(2, (COUNT_RUNS * WINDOW_MS) / 2000);
  const cpu0 = process.cpuUsage();
  await sleep(seconds * 1000);
  const used = process.cpuUsage(cpu0);
  counting.on = false;
  const t = counting.tallies.get('idle') ?? newTally();
  return { rate: new Map([...t.kinds].map(([k, n]) => [k, n / seconds])), cpuMsPerSecond: (used.user + used.system) / 1000 / seconds };
}

let responseEnded: (() => void) | null = null;
let nextRequestId = 0;

/** CPU ms used so far by the PostgreSQL backends connected to this database (null: not PostgreSQL, or /proc unreadable). */
async function backendCpuMs(db: Database): Promise<number | null> {
  if (db.kind !== 'postgres') return null;
  const { rows } = await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      return null;
    }
  }
  return ticks * 10;
}

async function benchStore(store: string, session: Session): Promise<StoreResult> {
  const { env, cleanup } = await openBenchStore(store, 'profile');
  const app = await createApiApp(loadConfig(env, []), { logLevel: 'silent' });
  await app.listen(0, '127.0.0.1');
  let rssPeak = 0;
  const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
  const server = app.getHttpServer();
  // first listener: the request's async chain gets a context; the end of its response is marked
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    // only while counting or timing: AsyncLocalStorage's promise hooks cost CPU the profiles must not show
    if (counting.on || stepTiming.on) requestContext.enterWith({ id: ++nextRequestId });
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.end = ((...args: unknown[]) => {
      responseEnded?.();
      return end(...args);
    }) as typeof res.end;
  });
  const port = (server.address() as AddressInfo).port;
  try {
    const db = app.get<Database>(DATABASE);
    if (db.kind === 'embedded') wrapPglite(db);
    wrapDatabase(db);
    const { secret_key } = await app.get(BusinessService).createBusiness({ name: 'Profile', simulated: true });
    const target = { port, key: secret_key };

    process.stderr.write(`[bench] ${store}: warm-up\n`);
    await many(target, 'POST /payments + Idempotency-Key', WARMUP, 4);
    await many(target, 'GET /payments?limit=25', WARMUP, 4);
    await sleep(500);

    process.stderr.write(`[bench] ${store}: query counts\n`);
    const idle = await idleRate();
    const counts: KindCounts[] = [];
    for (const kind of KINDS) counts.push(await countQueries(target, kind, idle.rate, idle.cpuMsPerSecond));
    const underLoad: LoadCounts[] = [];
    for (const kind of KINDS) underLoad.push(await countUnderLoad(target, kind, idle.rate));

    process.stderr.write(`[bench] ${store}: step timings\n`);
    const timings: StoreResult['timings'] = [];
    for (const kind of KINDS) {
      stepTiming.totals.clear();
      stepTiming.on = true;
      const latencies: number[] = [];
      const n = Math.min(REQUESTS, 300);
      await many(target, kind, n, 1, latencies);
      stepTiming.on = false;
      timings.push({
        kind,
        requests: n,
        p50: pct(latencies, 50),
        p90: pct(latencies, 90),
        steps: [...stepTiming.totals].map(([step, s]) => ({ step, msPerRequest: s.ms / n, callsPerRequest: s.calls / n })),
      });
      await sleep(300);
    }

    process.stderr.write(`[bench] ${store}: CPU profiles\n`);
    requestContext.disable();
    databaseCaller.disable();
    const cpu: CpuRun[] = [];
    for (const kind of KINDS) {
      for (const concurrency of [1, 16]) {
        await many(target, kind, 50, concurrency); // settle the shape of this run
        await sleep(300);
        const latencies: number[] = [];
        await session.post('Profiler.setSamplingInterval', { interval: 100 });
        await session.post('Profiler.start');
        const backend0 = await backendCpuMs(db);
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        await many(target, kind, REQUESTS, concurrency, latencies);
        const wallMs = performance.now() - t0;
        const used = process.cpuUsage(cpu0);
        const backend1 = await backendCpuMs(db);
        const { profile } = await session.post('Profiler.stop');
        const file = `profile-${store}-${kind.startsWith('POST') ? (kind.includes('Idempotency') ? 'post-key' : 'post') : 'get'}-c${concurrency}-${new Date().toISOString().slice(0, 10)}.cpuprofile`;
        mkdirSync(RESULTS, { recursive: true });
        writeFileSync(join(RESULTS, file), JSON.stringify(profile));
        const { steps } = stepsOf(profile);
        const serverMs = [...steps].filter(([s]) => s !== 'idle' && s !== 'bench client').reduce((a, [, ms]) => a + ms, 0);
        cpu.push({
          kind,
          concurrency,
          requests: REQUESTS,
          wallMs,
          perSecond: (REQUESTS / wallMs) * 1000,
          p50: pct(latencies, 50),
          p99: pct(latencies, 99),
          processCpuMsPerRequest: (used.user + used.system) / 1000 / REQUESTS,
          databaseServerCpuMsPerRequest: backend0 === null || backend1 === null ? null : (backend1 - backend0) / REQUESTS,
          serverCpuMsPerRequest: serverMs / REQUESTS,
          steps: [...steps]
            .filter(([s]) => s !== 'idle')
            .map(([step, ms]) => ({ step, ms, pct: step === 'bench client' ? NaN : (100 * ms) / serverMs, msPerRequest: ms / REQUESTS }))
            .sort((a, b) => b.ms - a.ms),
          profile: `bench/results/${file}`,
        });
        process.stderr.write(`[bench] ${store} ${kind} c${concurrency}: ${((REQUESTS / wallMs) * 1000).toFixed(0)}/s, ${(serverMs / REQUESTS).toFixed(2)} ms server CPU per request\n`);
        await sleep(500);
      }
    }
    return { store, counts, underLoad, timings, cpu, rssPeakMb: rssPeak / 2 ** 20 };
  } finally {
    clearInterval(rssTimer);
    await app.close();
    await cleanup();
  }
}

function table(header: string[], rows: string[][], left = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i < left ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i < left ? ` ${'-'.repeat(w)} ` : ` ${'-'.repeat(w - 1)}: `)).join('|')}|`, ...rows.map(line)].join('\n');
}

function print(results: StoreResult[]): void {
  console.log(`\nProfile benchmark — ${new Date().toISOString()} — Node ${process.version}, ${REQUESTS} requests per CPU run, ${COUNT_RUNS} per query count\n`);
  for (const r of results) {
    console.log(`### ${r.store} (RSS peak ${r.rssPeakMb.toFixed(0)} MB)\n`);
    for (const c of r.counts) {
      console.log(
        `#### Statements per request — ${c.kind}: ${c.totals.requestChain} on the request's chain + ${c.totals.backgroundBefore} background before the response; ${c.totals.after} after it (net of idle polling); transactions ${c.totals.transactionsInRequest} + ${c.totals.transactionsAfter}\n`,
      );
      console.log(
        table(
          ['statement', 'request chain', 'background, before response', 'after response', 'driver ms before response'],
          c.perRequest.filter((p) => p.requestChain + p.backgroundBefore + p.after >= 0.1).map((p) => [p.kind, p.requestChain.toFixed(1), p.backgroundBefore.toFixed(1), p.after.toFixed(1), p.msBeforeResponse.toFixed(2)]),
        ),
      );
      console.log('');
      console.log('Callers (innermost app frames; per request):');
      for (const p of c.perRequest.filter((q) => q.requestChain + q.backgroundBefore + q.after >= 0.1))
        for (const [caller, n] of Object.entries(p.callers)) if (n >= 0.1 && !caller.startsWith('after')) console.log(`- ${p.kind}: ${n} × ${caller}`);
      console.log('');
    }
    for (const l of r.underLoad) {
      console.log(`#### Statements per request under load — ${l.kind}, ${l.requests} at concurrency ${l.concurrency} and the settling window: ${l.total.toFixed(2)} in all (net of idle polling)\n`);
      console.log(table(['statement', 'per request'], l.perRequest.map((p) => [p.kind, p.n.toFixed(2)])));
      console.log('');
    }
    const idle = r.counts[0]?.idlePerSecond ?? {};
    console.log(`Idle polling (statements/s with no requests): ${Object.entries(idle).map(([k, n]) => `${k} ${n.toFixed(1)}`).join('; ')}; process CPU when idle ${(r.counts[0]?.idleCpuMsPerSecond ?? 0).toFixed(0)} ms/s\n`);
    for (const t of r.timings) {
      console.log(`#### Wall time per step (inclusive, concurrency 1) — ${t.kind}: p50 ${t.p50.toFixed(2)} ms, p90 ${t.p90.toFixed(2)} ms\n`);
      console.log(table(['step', 'ms / request', 'calls / request'], t.steps.map((s) => [s.step, s.msPerRequest.toFixed(2), s.callsPerRequest.toFixed(1)])));
      console.log('');
    }
    for (const c of r.cpu) {
      console.log(
        `#### CPU self time by step — ${c.kind}, concurrency ${c.concurrency}: ${c.perSecond.toFixed(0)}/s, p50 ${c.p50.toFixed(1)} ms, p99 ${c.p99.toFixed(1)} ms; server ${c.serverCpuMsPerRequest.toFixed(2)} ms CPU/request (process incl. client ${c.processCpuMsPerRequest.toFixed(2)})${c.databaseServerCpuMsPerRequest === null ? '' : `; PostgreSQL backends ${c.databaseServerCpuMsPerRequest.toFixed(2)} ms CPU/request`} — ${c.profile}\n`,
      );
      console.log(table(['step', '% of server CPU', 'ms CPU / request'], c.steps.map((s) => [s.step, Number.isNaN(s.pct) ? '(client)' : s.pct.toFixed(1), s.msPerRequest.toFixed(3)])));
      console.log('');
    }
  }
}

async function main(): Promise<void> {
  wrapPg();
  wrapSteps();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  const results: StoreResult[] = [];
  for (const store of STORES) results.push(await benchStore(store, session));
  await session.post('Profiler.disable');
  session.disconnect();
  agent.destroy();
  saveResults('profile', results);
  print(results);
}

runBench(main);
