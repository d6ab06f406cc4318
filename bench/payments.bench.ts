/**
 * `npm run bench:payments`: the whole simulated payment flow over HTTP, per store:
 *   create payment → open checkout → mark-sent exact → advance the test clock 15 s (the four
 *   simulated confirmations fire) → the payment is succeeded,
 * with BENCH_CONCURRENCY (16) flows at once, each on its own simulated business (its own clock).
 * Baselines in the same run and server: a bare route (GET /health/live) and a plain read
 * (GET /payments/{id}) at the same concurrency.
 * Reported: completed payments/s, p50/p99 of each call, and projection lag p50/p99 (a sampler
 * takes the store's head every 50 ms and measures how long until every projection passed it).
 *
 * Env: BENCH_SECONDS (default 10), BENCH_CONCURRENCY (16), BENCH_STORES (embedded,postgres),
 * BENCH_DATABASE_URL (admin URL of the PostgreSQL server).
 */
import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { openBenchStore } from './support/bench-store';
import { BusinessService } from '../libs/businesses/src';
import { DATABASE, loadConfig } from '../libs/core/src';
import { Database } from '../libs/database/src';
import { EVENT_STORE, EventStore } from '../libs/eventstore/src';
import { ProjectionRunner } from '../libs/projections/src';
import { createApiApp } from '../apps/api/src/bootstrap';
import { failOnErrors, runBench, saveResults } from './support/report';
import { benchNumbers, benchStores } from './support/settings';

const { SECONDS, CONCURRENCY } = benchNumbers({ SECONDS: 10, CONCURRENCY: 16 });
const STORES = benchStores();

const STEPS = ['bare GET /health/live', 'GET /payments/{id}', 'POST /payments', 'POST /checkouts', 'POST mark-sent', 'POST /test_clock/advance', 'flow (4 calls)'] as const;
type Step = (typeof STEPS)[number];

interface Result {
  store: string;
  payments: number;
  seconds: number;
  latencies: Map<Step, number[]>;
  lag: number[];
  errors: string[];
}

const pct = (values: number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function timed<T>(into: number[], fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  into.push(performance.now() - t0);
  return out;
}

let customers = 0;
/** A distinct customer address per checkout (10.x.y.z). */
function customerAddress(): string {
  const n = ++customers;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

async function call(base: string, method: string, path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function benchStore(store: string): Promise<Result> {
  // Customers come from many addresses: the load generator says so through X-Forwarded-For from a
  // trusted loopback proxy, so the per-IP limit on POST /checkouts (30 per 10 minutes) applies per customer.
  const { env, cleanup } = await openBenchStore(store, 'payments', { TRUSTED_PROXIES: 'loopback' });
  const app = await createApiApp(loadConfig(env, []), { logLevel: 'silent' });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/api/v1`;
  const latencies = new Map<Step, number[]>(STEPS.map((s) => [s, []]));
  const lag: number[] = [];
  const errors: string[] = [];
  try {
    const businesses = app.get(BusinessService);
    const keys: string[] = [];
    for (let i = 0; i < CONCURRENCY; i++) keys.push((await businesses.createBusiness({ name: `Bench ${i}`, simulated: true })).secret_key);
    const sample = (await call(base, 'POST', '/payments', keys[0], { amount: 500, currency: 'USD' })).data;

    // baselines, same server, same concurrency
    for (const [step, path, key] of [
      ['bare GET /health/live', '/health/live', null],
      ['GET /payments/{id}', `/payments/${sample.id}`, keys[0]],
    ] as const) {
      const until = Date.now() + Math.min(3, SECONDS) * 1000;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (Date.now() < until) await timed(latencies.get(step)!, () => call(base, 'GET', path, key));
        }),
      );
    }

    const store_ = app.get<EventStore>(EVENT_STORE);
    const projections = app.get(ProjectionRunner);
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const head = await store_.headPosition();
        const t0 = performance.now();
        if (head && (await projections.waitFor(head, 10_000))) lag.push(performance.now() - t0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    let payments = 0;
    const started = performance.now();
    const until = Date.now() + SECONDS * 1000;
    await Promise.all(
      keys.map(async (key) => {
        while (Date.now() < until) {
          try {
            const flowStart = performance.now();
            const payment = (await timed(latencies.get('POST /payments')!, () => call(base, 'POST', '/payments', key, { amount: 10_000, currency: 'USD', description: 'bench' }))).data;
            const code = payment.url.split('/').pop();
            const checkout = (
              await timed(latencies.get('POST /checkouts')!, () =>
                call(base, 'POST', '/checkouts', null, { payment_code: code, asset: 'USDC', network: 'ethereum' }, { 'idempotency-key': randomUUID(), 'x-forwarded-for': customerAddress() }),
              )
            ).data;
            await timed(latencies.get('POST mark-sent')!, () => call(base, 'POST', `/checkouts/${checkout.id}/mark-sent`, null, { simulate: 'exact' }));
            await timed(latencies.get('POST /test_clock/advance')!, () => call(base, 'POST', '/test_clock/advance', key, { seconds: 15 }));
            const done = (await call(base, 'GET', `/payments/${payment.id}`, key)).data;
            if (done.status !== 'succeeded') {
              const { rows } = await app.get<Database>(DATABASE).query<{ id: string; status: string; last_error: string | null; attempts: number }>(
                `SELECT id, status, last_error, attempts FROM timers WHERE subject = $1 ORDER BY due_at`,
                [checkout.id],
              );
              throw new Error(`payment ${payment.id} is ${done.status} after the flow; checkout timers: ${JSON.stringify(rows)}`);
            }
            latencies.get('flow (4 calls)')!.push(performance.now() - flowStart);
            payments++;
          } catch (error) {
            errors.push(error instanceof Error ? error.message : String(error));
            if (errors.length > 20) throw error;
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    sampling = false;
    await sampler;
    process.stderr.write(`[bench] ${store}: ${payments} payments in ${seconds.toFixed(1)} s\n`);
    return { store, payments, seconds, latencies, lag, errors };
  } finally {
    await app.close();
    await cleanup();
  }
}

async function main(): Promise<void> {
  const results: Result[] = [];
  for (const store of STORES) results.push(await benchStore(store));
  console.log(`\nPayments benchmark — ${new Date().toISOString()} — ${CONCURRENCY} concurrent flows, ${SECONDS} s per store, Node ${process.version}\n`);
  const header = ['store', 'call', 'count', 'p50 ms', 'p99 ms'];
  const rows: string[][] = [];
  for (const r of results) {
    for (const step of STEPS) {
      const values = r.latencies.get(step)!;
      rows.push([r.store, step, String(values.length), pct(values, 50).toFixed(1), pct(values, 99).toFixed(1)]);
    }
    rows.push([r.store, 'projection lag (sampled)', String(r.lag.length), pct(r.lag, 50).toFixed(1), pct(r.lag, 99).toFixed(1)]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log([line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n'));
  console.log('');
  for (const r of results) {
    const bare = pct(r.latencies.get('bare GET /health/live')!, 50);
    const flow = pct(r.latencies.get('flow (4 calls)')!, 50);
    console.log(`${r.store}: ${(r.payments / r.seconds).toFixed(1)} payments/s completed to succeeded; flow p50 ${flow.toFixed(1)} ms = ${(flow / bare).toFixed(0)}× a bare route's p50; errors ${r.errors.length}`);
  }
  saveResults('payments', results.map((r) => ({ ...r, latencies: Object.fromEntries(r.latencies) })));
  failOnErrors(results);
}

runBench(main);
