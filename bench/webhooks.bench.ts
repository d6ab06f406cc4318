/**
 * `npm run bench:webhooks`: the webhook pipeline on the real app (ROLE=all: the HTTP API, the
 * projections with the real `events` projector and payment event source, and the real
 * WebhookDispatcher in one process), delivering to a local receiver: a plain node:http server
 * answering 200, in a child process (a real receiver is on another machine; in a child it does
 * not take event-loop time from the dispatcher it is measuring).
 *
 * One simulated business with BENCH_ENDPOINTS (4) endpoints, each subscribed to payment.created
 * at http://127.0.0.1:<port>/hooks/a/<i> (WEBHOOK_ALLOW_PRIVATE_URLS=true). Events are real: every
 * POST /payments appends PaymentCreated, the events projector maps it to payment.created and
 * writes one delivery per endpoint into the outbox (the POST answers after the projections have
 * caught up, so the outbox row exists when it returns), and the dispatcher sends them.
 *
 * Per store, in this order:
 *   1. baselines: raw HTTP POSTs from this process to the same receiver, a body of a delivery's
 *      size, at the dispatcher's concurrency for these endpoints (min(total, perEndpoint ×
 *      endpoints), read from the dispatcher), with a new connection per request as the
 *      dispatcher's sender makes them (agent: false), and with keep-alive for reference;
 *   2. backlog drain: the dispatcher stopped, BENCH_EVENTS events produced, then started: its
 *      deliveries/s alone (p50/p99 here: the attempt durations the dispatcher recorded);
 *   3. end to end: BENCH_EVENTS events produced by BENCH_PRODUCERS concurrent POST /payments
 *      with the dispatcher running, from the first request to the last delivery received
 *      (p50/p99: event → delivered, from the POST's answer to the receiver's arrival; the
 *      dispatcher can beat the client to it by a few ms, so the smallest values may be < 0);
 *   4. latency at a fixed rate: BENCH_RATE (100) events/s for BENCH_SECONDS (10), open loop
 *      (requests are sent on schedule whether earlier ones answered or not); event → delivered.
 *      Twice: on a second business with one endpoint (100 deliveries/s: what one subscriber
 *      sees), then on the first one's BENCH_ENDPOINTS (400 deliveries/s with 4, not far from
 *      what the dispatcher does beside the API on a 2-core machine: the row says SATURATED when
 *      the deliveries ended more than 1 s after the last event (a backlog built up) or the
 *      events could not be produced at the rate).
 * Every delivery is checked (one per event and endpoint, payment.created of a payment of its
 * phase, webhook-id = event id), a sample's signatures are verified with `standardwebhooks`
 * and a tampered body must fail, and the outbox must end with every delivery succeeded at its
 * first attempt.
 *
 * Env: BENCH_SECONDS (10), BENCH_RATE (100), BENCH_EVENTS (1000), BENCH_ENDPOINTS (4),
 * BENCH_PRODUCERS (16), BENCH_STORES (postgres; embedded,postgres for both),
 * BENCH_DATABASE_URL (admin URL of the PostgreSQL server).
 *
 * Why postgres only by default: the embedded store (PGlite, one connection, in this process)
 * creates payments several times slower than PostgreSQL (bench:payments: POST /payments p50
 * 179 ms against 63 ms at 16 concurrent) and its work blocks this process's event loop, so it
 * cannot sustain 100 events/s (measured: POST /payments p99 3.4 s at 100/s, a backlog drained
 * at 191 deliveries/s, event → delivered p50 2.5 s at 100 events/s to one endpoint), and every
 * phase would measure how fast it appends, not what the dispatcher costs.
 */
import { ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openBenchStore } from './support/bench-store';
import { Webhook } from 'standardwebhooks';
import { BusinessService } from '../libs/businesses/src';
import { DATABASE, loadConfig } from '../libs/core/src';
import type { Database } from '../libs/database/src';
import { WebhookDispatcher } from '../libs/webhooks/src';
import { createApiApp } from '../apps/api/src/bootstrap';
import { failOnErrors, runBench, saveResults } from './support/report';
import { benchNumbers, benchStores } from './support/settings';

const { SECONDS, RATE, EVENTS, ENDPOINTS, PRODUCERS } = benchNumbers({ SECONDS: 10, RATE: 100, EVENTS: 1000, ENDPOINTS: 4, PRODUCERS: 16 });
const STORES = benchStores('postgres');
/** How long a phase may wait for its last delivery. */
const DRAIN_TIMEOUT_MS = 120_000;
/** Every n-th delivery's signature is verified (plus the first and the last of each phase). */
const VERIFY_EVERY = 20;

/** Wall time in ms with sub-ms resolution, comparable across processes on this machine. */
const wall = () => performance.timeOrigin + performance.now();

interface Row {
  store: string;
  what: string;
  count: number;
  rate: number;
  p50: number;
  p99: number;
  note?: string;
}

interface Delivery {
  at: number;
  path: string;
  id: string | null;
  timestamp: string | null;
  signature: string | null;
  body: string;
}

const pct = (values: number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

// ------------------------------------------------------------------ the receiver (child process)

const RECEIVER_SOURCE = `
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const wall = () => performance.timeOrigin + performance.now();
let records = [];
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = wall();
    const hook = req.headers['webhook-id'];
    records.push({
      at,
      path: req.url,
      id: hook ?? null,
      timestamp: req.headers['webhook-timestamp'] ?? null,
      signature: req.headers['webhook-signature'] ?? null,
      body: hook ? Buffer.concat(chunks).toString('utf8') : '',
    });
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 10000;
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
process.on('message', (m) => {
  if (m.type === 'count') process.send({ type: 'count', count: records.length });
  if (m.type === 'take') { const out = records; records = []; process.send({ type: 'records', records: out }); }
  if (m.type === 'exit') { server.closeAllConnections(); server.close(() => process.exit(0)); }
});
`;

class Receiver {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(dir: string): Promise<Receiver> {
    const file = join(dir, 'receiver.js');
    writeFileSync(file, RECEIVER_SOURCE);
    const child = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
    const port = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('message', (m: { type: string; port: number }) => resolve(m.port));
    });
    return new Receiver(child, port);
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  private ask<T>(type: string, answer: string): Promise<T> {
    return new Promise((resolve) => {
      const on = (m: { type: string } & T) => {
        if (m.type !== answer) return;
        this.child.off('message', on);
        resolve(m);
      };
      this.child.on('message', on);
      this.child.send({ type });
    });
  }

  async count(): Promise<number> {
    return (await this.ask<{ count: number }>('count', 'count')).count;
  }

  /** Everything received since the last take. */
  async take(): Promise<Delivery[]> {
    return (await this.ask<{ records: Delivery[] }>('take', 'records')).records;
  }

  /** Waits until `n` requests have arrived since the last take (or throws after the timeout). */
  async waitFor(n: number, timeoutMs = DRAIN_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const count = await this.count();
      if (count >= n) return;
      if (Date.now() > deadline) throw new Error(`the receiver got ${count} requests, expected ${n}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'exit' });
    await exited;
  }
}

// ------------------------------------------------------------------ clients

async function call(base: string, method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** One bare POST; resolves its latency (start to the end of the answer). */
function rawPost(url: string, body: string, agent: http.Agent | false): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`raw POST: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A payment created over HTTP: its id, and when the request started and was answered (wall ms). */
interface Produced {
  paymentId: string;
  sentAt: number;
  answeredAt: number;
}

async function createPayment(base: string, key: string, seq: number): Promise<Produced> {
  const sentAt = wall();
  const payment = (await call(base, 'POST', '/payments', key, { amount: 1_000 + (seq % 9_000), currency: 'USD', description: `bench ${seq}` })).data;
  return { paymentId: payment.id, sentAt, answeredAt: wall() };
}

// ------------------------------------------------------------------ checks

interface Endpoint {
  id: string;
  path: string;
  secret: string;
}

interface Checked {
  /** Event → delivered, ms, per delivery. */
  latencies: number[];
  firstAt: number;
  lastAt: number;
  verified: number;
}

/**
 * Checks a phase's deliveries: exactly one per (payment, endpoint), payment.created of a payment
 * of this phase, webhook-id = the event id; verifies every VERIFY_EVERY-th signature (and the
 * first and last) with standardwebhooks, and that a tampered body fails.
 */
function check(phase: string, deliveries: Delivery[], produced: Produced[], endpoints: Endpoint[]): Checked {
  const byPayment = new Map(produced.map((p) => [p.paymentId, p]));
  const byPath = new Map(endpoints.map((e) => [e.path, e]));
  const seen = new Set<string>();
  const latencies: number[] = [];
  let verified = 0;
  deliveries.forEach((d, i) => {
    const endpoint = byPath.get(d.path);
    if (!endpoint) throw new Error(`${phase}: a request to ${d.path}, not to an endpoint`);
    const event = JSON.parse(d.body) as { id: string; type: string; subject: { kind: string; id: string } };
    if (event.type !== 'payment.created') throw new Error(`${phase}: ${event.type} delivered, expected payment.created`);
    if (event.id !== d.id) throw new Error(`${phase}: webhook-id ${d.id} is not the event id ${event.id}`);
    const source = byPayment.get(event.subject.id);
    if (!source) throw new Error(`${phase}: an event for ${event.subject.id}, not a payment of this phase`);
    const key = `${d.path} ${event.subject.id}`;
    if (seen.has(key)) throw new Error(`${phase}: ${event.subject.id} delivered twice to ${d.path}`);
    seen.add(key);
    latencies.push(d.at - source.answeredAt);
    if (i % VERIFY_EVERY === 0 || i === deliveries.length - 1) {
      const headers = { 'webhook-id': d.id!, 'webhook-timestamp': d.timestamp!, 'webhook-signature': d.signature! };
      const verifiedEvent = new Webhook(endpoint.secret).verify(d.body, headers) as { id: string };
      if (verifiedEvent.id !== event.id) throw new Error(`${phase}: the verified payload is not the delivered one`);
      let tamperedPassed = false;
      try {
        new Webhook(endpoint.secret).verify(d.body.replace('payment.created', 'payment.createX'), headers);
        tamperedPassed = true;
      } catch {
        // expected: the signature covers the body
      }
      if (tamperedPassed) throw new Error(`${phase}: a tampered body verified`);
      verified++;
    }
  });
  const expected = produced.length * endpoints.length;
  if (seen.size !== expected) throw new Error(`${phase}: ${seen.size} distinct deliveries, expected ${expected}`);
  const ats = deliveries.map((d) => d.at);
  return { latencies, firstAt: Math.min(...ats), lastAt: Math.max(...ats), verified };
}

// ------------------------------------------------------------------ one store

interface StoreResult {
  store: string;
  rows: Row[];
  verified: number;
  concurrency: { total: number; perEndpoint: number; effective: number };
  raw: Record<string, number[]>;
  errors: string[];
}

async function benchStore(store: string): Promise<StoreResult> {
  const { dir, env, cleanup } = await openBenchStore(store, 'webhooks', { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ROLE: 'all' });
  const receiver = await Receiver.start(dir);
  const app = await createApiApp(loadConfig(env, []), { logLevel: 'silent' });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/api/v1`;
  const rows: Row[] = [];
  const raw: Record<string, number[]> = {};
  const errors: string[] = [];
  let verified = 0;
  /** Deliveries checked at the receiver (the outbox must hold as many, all succeeded). */
  let delivered = 0;
  const log = (message: string) => process.stderr.write(`[bench] ${store}: ${message}\n`);
  try {
    const dispatcher = app.get(WebhookDispatcher, { strict: false });
    const db = app.get<Database>(DATABASE, { strict: false });
    // the dispatcher's bounds (private fields; defaults documented in its options: 64 and 4)
    const bounds = dispatcher as unknown as { concurrency?: number; perEndpoint?: number };
    const total = bounds.concurrency ?? 64;
    const perEndpoint = bounds.perEndpoint ?? 4;
    const effective = Math.min(total, perEndpoint * ENDPOINTS);

    /** A simulated business with `count` endpoints subscribed to payment.created, at /hooks/<name>/<i>. */
    const business = async (name: string, count: number) => {
      const { secret_key } = await app.get(BusinessService).createBusiness({ name: `Bench webhooks ${name}`, simulated: true });
      const hooks: Endpoint[] = [];
      for (let i = 0; i < count; i++) {
        const path = `/hooks/${name}/${i}`;
        const hook = (await call(base, 'POST', '/webhooks', secret_key, { url: receiver.url(path), event_types: ['payment.created'], description: `bench ${name} ${i}` })).data;
        hooks.push({ id: hook.id, path, secret: hook.secret });
      }
      return { key: secret_key as string, endpoints: hooks };
    };
    const { key, endpoints } = await business('a', ENDPOINTS);

    let seq = 0;
    /** `count` payments by `producers` concurrent clients; resolves them in the order they were answered. */
    const produce = async (count: number, producers: number, key_ = key): Promise<Produced[]> => {
      const out: Produced[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(producers, count) }, async () => {
          while (next < count) {
            next++;
            out.push(await createPayment(base, key_, seq++));
          }
        }),
      );
      return out;
    };
    const outboxCount = async (status: string) => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE status = $1`, [status])).rows[0].n);

    // warm-up: a few events through the whole pipeline
    {
      const produced = await produce(20, 4);
      await receiver.waitFor(20 * ENDPOINTS);
      const checked = check('warm-up', await receiver.take(), produced, endpoints);
      verified += checked.verified;
      delivered += checked.latencies.length;
    }

    // 1. baselines: bare HTTP at the dispatcher's concurrency, a body of a delivery's size
    const sampleBody = (await db.query<{ payload: unknown }>(`SELECT payload FROM webhook_deliveries LIMIT 1`)).rows[0].payload;
    const body = typeof sampleBody === 'string' ? sampleBody : JSON.stringify(sampleBody);
    const baselineCount = EVENTS * ENDPOINTS;
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: effective });
    for (const [what, agent] of [
      [`raw POST, new connection each (as the sender), ${effective} in flight`, false],
      [`raw POST, keep-alive, ${effective} in flight`, keepAlive],
    ] as const) {
      await Promise.all(Array.from({ length: effective }, (_, w) => rawPost(receiver.url(endpoints[w % ENDPOINTS].path), body, agent))); // warm
      const latencies: number[] = [];
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: effective }, async (_, w) => {
          while (next < baselineCount) {
            next++;
            latencies.push(await rawPost(receiver.url(endpoints[w % ENDPOINTS].path), body, agent));
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      rows.push({ store, what: `baseline: ${what}`, count: latencies.length, rate: latencies.length / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), note: 'request latency' });
      raw[`baseline ${agent ? 'keep-alive' : 'new connection'}`] = latencies;
      await receiver.take();
      log(`${what}: ${Math.round(latencies.length / seconds)} req/s`);
    }
    keepAlive.destroy();

    // 2. backlog drain: the dispatcher alone, on EVENTS × ENDPOINTS due deliveries
    {
      await dispatcher.stop();
      const t0 = wall();
      const produced = await produce(EVENTS, PRODUCERS);
      const producedSeconds = (wall() - t0) / 1000;
      const due = produced.length * ENDPOINTS;
      const deadline = Date.now() + 30_000;
      while ((await outboxCount('retrying')) < due) {
        if (Date.now() > deadline) throw new Error(`the outbox has ${await outboxCount('retrying')} due deliveries, expected ${due}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if ((await receiver.count()) !== 0) throw new Error('a stopped dispatcher delivered');
      log(`backlog: ${produced.length} events produced in ${producedSeconds.toFixed(1)} s, ${due} deliveries due`);
      const started = wall();
      dispatcher.start();
      await receiver.waitFor(due);
      const checked = check('backlog', await receiver.take(), produced, endpoints);
      verified += checked.verified;
      delivered += checked.latencies.length;
      const seconds = (checked.lastAt - started) / 1000;
      const ids = produced.map((p) => p.paymentId);
      const durations = (
        await db.query<{ duration_ms: number }>(`SELECT duration_ms FROM webhook_deliveries WHERE subject_id = ANY($1::text[])`, [ids])
      ).rows.map((r) => Number(r.duration_ms));
      rows.push({ store, what: `dispatcher: drain a backlog of ${due} deliveries`, count: due, rate: due / seconds, p50: pct(durations, 50), p99: pct(durations, 99), note: 'attempt duration_ms as recorded' });
      raw['backlog attempt duration_ms'] = durations;
      log(`backlog drained: ${Math.round(due / seconds)} deliveries/s`);
    }

    // 3. end to end: produce EVENTS with the dispatcher running
    {
      const t0 = wall();
      const requestLatencies: number[] = [];
      const produced = (await produce(EVENTS, PRODUCERS)).map((p) => (requestLatencies.push(p.answeredAt - p.sentAt), p));
      const producedAt = wall();
      const expected = produced.length * ENDPOINTS;
      await receiver.waitFor(expected);
      const checked = check('end to end', await receiver.take(), produced, endpoints);
      verified += checked.verified;
      delivered += checked.latencies.length;
      const seconds = (checked.lastAt - t0) / 1000;
      rows.push({
        store,
        what: `POST /payments, ${PRODUCERS} concurrent (events produced)`,
        count: produced.length,
        rate: produced.length / ((producedAt - t0) / 1000),
        p50: pct(requestLatencies, 50),
        p99: pct(requestLatencies, 99),
        note: 'request latency',
      });
      rows.push({ store, what: `end to end: ${EVENTS} events × ${ENDPOINTS} endpoints, first POST → last delivery`, count: expected, rate: expected / seconds, p50: pct(checked.latencies, 50), p99: pct(checked.latencies, 99), note: 'event → delivered' });
      raw['end to end: POST /payments'] = requestLatencies;
      raw['end to end: event → delivered'] = checked.latencies;
      log(`end to end: ${Math.round(expected / seconds)} deliveries/s`);
    }

    // 4. latency at a fixed rate, open loop: to one endpoint (a sustainable load), then to every endpoint of the first business
    const fixedRate = async (target: { key: string; endpoints: Endpoint[] }) => {
      const fanOut = target.endpoints.length;
      const total = Math.round(RATE * SECONDS);
      const interval = 1000 / RATE;
      const t0 = performance.now();
      const pending: Promise<Produced | null>[] = [];
      for (let i = 0; i < total; i++) {
        const wait = t0 + i * interval - performance.now();
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
        pending.push(
          createPayment(base, target.key, seq++).catch((error) => {
            errors.push(`fixed rate: ${error instanceof Error ? error.message : String(error)}`);
            return null;
          }),
        );
      }
      const sendSeconds = (performance.now() - t0) / 1000;
      const produced = (await Promise.all(pending)).filter((p): p is Produced => p !== null);
      const expected = produced.length * fanOut;
      await receiver.waitFor(expected);
      const checked = check(`fixed rate × ${fanOut}`, await receiver.take(), produced, target.endpoints);
      verified += checked.verified;
      delivered += checked.latencies.length;
      const requestLatencies = produced.map((p) => p.answeredAt - p.sentAt);
      const lastProduced = Math.max(...produced.map((p) => p.answeredAt));
      const tail = (checked.lastAt - lastProduced) / 1000;
      rows.push({ store, what: `POST /payments at ${RATE}/s for ${SECONDS} s, ${fanOut} endpoint${fanOut > 1 ? 's' : ''} subscribed`, count: produced.length, rate: produced.length / sendSeconds, p50: pct(requestLatencies, 50), p99: pct(requestLatencies, 99), note: 'request latency' });
      rows.push({
        store,
        what: `latency at ${RATE} events/s × ${fanOut} endpoint${fanOut > 1 ? 's' : ''} (${RATE * fanOut} deliveries/s offered)`,
        count: expected,
        rate: expected / ((checked.lastAt - checked.firstAt) / 1000),
        p50: pct(checked.latencies, 50),
        p99: pct(checked.latencies, 99),
        note: `event → delivered${tail > 1 ? `; SATURATED: last delivery ${tail.toFixed(1)} s after the last event` : produced.length / sendSeconds < 0.95 * RATE ? `; SATURATED: events produced at ${(produced.length / sendSeconds).toFixed(0)}/s` : ''}`,
      });
      raw[`fixed rate × ${fanOut}: POST /payments`] = requestLatencies;
      raw[`fixed rate × ${fanOut}: event → delivered`] = checked.latencies;
      log(`fixed rate × ${fanOut}: event → delivered p50 ${pct(checked.latencies, 50).toFixed(1)} ms, p99 ${pct(checked.latencies, 99).toFixed(1)} ms, last delivery ${tail.toFixed(2)} s after the last event`);
    };
    if (ENDPOINTS > 1) await fixedRate(await business('b', 1));
    await fixedRate({ key, endpoints });

    // the outbox agrees: every delivery succeeded, each at its first attempt
    const { rows: outcome } = await db.query<{ status: string; n: string; max_attempt: number }>(
      `SELECT status, count(*) AS n, max(attempt) AS max_attempt FROM webhook_deliveries GROUP BY status`,
    );
    const succeeded = outcome.find((o) => o.status === 'succeeded');
    const expectedTotal = delivered;
    if (outcome.length !== 1 || !succeeded || Number(succeeded.n) !== expectedTotal || Number(succeeded.max_attempt) !== 1) {
      errors.push(`outbox: ${JSON.stringify(outcome)}, expected ${expectedTotal} succeeded at attempt 1`);
    }
    return { store, rows, verified, concurrency: { total, perEndpoint, effective }, raw, errors };
  } finally {
    await app.close();
    await receiver.close();
    await cleanup();
  }
}

async function main(): Promise<void> {
  // others' processes on the machine skew every number here: say how busy it was
  const load = loadavg()[0];
  const results: StoreResult[] = [];
  for (const store of STORES) results.push(await benchStore(store));
  const c = results[0].concurrency;
  console.log(
    `\nWebhooks benchmark — ${new Date().toISOString()} — ${ENDPOINTS} endpoints on one local receiver, dispatcher bounds ${c.total} total / ${c.perEndpoint} per endpoint → ${c.effective} in flight, ${EVENTS} events per burst, ${RATE} events/s for ${SECONDS} s, Node ${process.version}, load average before ${load.toFixed(2)}\n`,
  );
  const header = ['store', 'what', 'count', 'rate/s', 'p50 ms', 'p99 ms', 'p50/p99 of'];
  const table = results.flatMap((r) => r.rows).map((row) => [row.store, row.what, String(row.count), row.rate.toFixed(0), row.p50.toFixed(1), row.p99.toFixed(1), row.note ?? '']);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((cell, i) => (i < 2 || i === 6 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log([line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...table.map(line)].join('\n'));
  console.log('');
  for (const r of results) {
    const bare = r.rows.find((row) => row.what.includes('new connection'))!;
    const drain = r.rows.find((row) => row.what.startsWith('dispatcher'))!;
    const e2e = r.rows.find((row) => row.what.startsWith('end to end'))!;
    const fixed = r.rows.filter((row) => row.what.startsWith('latency'));
    console.log(
      `${r.store}: the dispatcher delivers ${drain.rate.toFixed(0)}/s from a backlog = ${((drain.rate / bare.rate) * 100).toFixed(0)}% of bare HTTP at the same ${r.concurrency.effective} in flight (${bare.rate.toFixed(0)}/s); ` +
        `end to end ${e2e.rate.toFixed(0)} deliveries/s; at ${RATE} events/s event → delivered ${fixed.map((f) => `p50 ${f.p50.toFixed(0)} / p99 ${f.p99.toFixed(0)} ms (${f.what.split('× ')[1].split(' (')[0]})`).join(', ')}; ` +
        `${r.verified} signatures verified with standardwebhooks; errors ${r.errors.length}`,
    );
  }
  saveResults('webhooks', {
    at: new Date().toISOString(),
    config: { seconds: SECONDS, rate: RATE, events: EVENTS, endpoints: ENDPOINTS, producers: PRODUCERS, node: process.version, loadAverageBefore: load },
    results: results.map((r) => ({ ...r, raw: Object.fromEntries(Object.entries(r.raw).map(([k, v]) => [k, v.map((x) => Math.round(x * 10) / 10)])) })),
  });
  failOnErrors(results);
}

runBench(main);
