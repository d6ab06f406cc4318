/**
 * `npm run bench:search` (issue #13 point 7, decision 0031): GET /search on PostgreSQL over a big
 * business. Seeding: BENCH_CUSTOMERS (20,000) customers (CustomerCreated with a name, on their
 * streams) and BENCH_PAYMENTS (100,000) payments (PaymentCreated, each naming one of those
 * customers by e-mail and id, with a description, a unique reference and metadata) appended to
 * the event log through the store's own append, BENCH_APPENDERS (16) at a time; then every
 * projection catches up (payments, customers, search, events, …) as it would in production.
 * Measured, one client, BENCH_REQUESTS (400) requests each, the query varied per request:
 *   baseline  GET /payments/{id} (a random payment)
 *   exact id  GET /search?q=<a random payment id>
 *   e-mail    GET /search?q=<a random customer's e-mail> (the customer and its 5 payments)
 *   prefix    GET /search?q=<the first 5 letters of a surname> (hundreds of customers and payments: the page sorts them all)
 *   substring GET /search?q=<7 characters from the middle of a random reference>
 * Reported: p50/p99 per call, how many results the query matched (total, from the index), the
 * seeding and catch-up times. Target: p99 < 50 ms for each search.
 *
 * Env: BENCH_PAYMENTS (100000), BENCH_CUSTOMERS (20000), BENCH_REQUESTS (400), BENCH_APPENDERS (16),
 * BENCH_DATABASE_URL (admin URL of the PostgreSQL server), BENCH_KEEP (keep the database, to look at the plans),
 * BENCH_LOG_LEVEL (warn: the service's warnings).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createApiApp } from '../apps/api/src/bootstrap';
import { BusinessService } from '../libs/businesses/src';
import { DATABASE, loadConfig } from '../libs/core/src';
import type { Database } from '../libs/database/src';
import { EVENT_STORE, EventStore, NewEvent } from '../libs/eventstore/src';
import { customerIdFor } from '../libs/payments/src';
import { ProjectionRunner } from '../libs/projections/src';
import { normaliseQuery } from '../libs/search/src';
import { openBenchStore } from './support/bench-store';
import { failOnErrors, runBench, saveResults } from './support/report';
import { benchNumbers } from './support/settings';

const { PAYMENTS, CUSTOMERS, REQUESTS, APPENDERS } = benchNumbers({ PAYMENTS: 100_000, CUSTOMERS: 20_000, REQUESTS: 400, APPENDERS: 16 });

const FIRST = ['Ann', 'Bob', 'Carla', 'David', 'Eva', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Kira', 'Liam', 'Mona', 'Nils', 'Olga', 'Paul', 'Quinn', 'Rosa', 'Sven', 'Tara'];
const LAST = ['Anderson', 'Bergstrom', 'Castellano', 'Dubois', 'Eriksen', 'Fontaine', 'Gallagher', 'Hoffmann', 'Ivanova', 'Jablonski', 'Kowalski', 'Lindqvist', 'Moreau', 'Nakamura', 'Okonkwo', 'Petrov', 'Quintero', 'Rasmussen', 'Schneider', 'Takahashi', 'Underwood', 'Vasquez', 'Whitfield', 'Yamamoto', 'Zielinski'];
const PRODUCTS = ['blue widget', 'red gadget', 'green gizmo', 'yellow doohickey', 'oak table', 'steel chair', 'linen shirt', 'wool scarf', 'coffee beans', 'green tea'];
const CALLS = ['GET /payments/{id} (baseline)', 'search: exact id', 'search: e-mail', 'search: word prefix', 'search: substring'] as const;
type Call = (typeof CALLS)[number];

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomId = (prefix: string, length = 24) => prefix + Array.from(randomBytes(length), (b) => BASE62[b % 62]).join('');
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)];

const pct = (values: number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function inParallel(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

async function main(): Promise<void> {
  const { env, cleanup } = await openBenchStore('postgres', 'search');
  const app = await createApiApp(loadConfig(env, []), { logLevel: process.env.BENCH_LOG_LEVEL === 'warn' ? 'warn' : 'silent' });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/api/v1`;
  const errors: string[] = [];
  try {
    const created = await app.get(BusinessService).createBusiness({ name: 'Search bench', simulated: true });
    const businessId = created.business.id;
    const key = created.secret_key;
    const store = app.get<EventStore>(EVENT_STORE);
    const db = app.get<Database>(DATABASE);

    // ---- seed: customers, then payments naming them, through the log
    const seedStart = performance.now();
    const customers = Array.from({ length: CUSTOMERS }, (_, i) => {
      const [first, last] = [FIRST[i % FIRST.length], LAST[Math.floor(i / FIRST.length) % LAST.length]];
      const email = `${first}.${last}.${i}@mail.example`.toLowerCase();
      return { id: customerIdFor(businessId, email), email, name: `${first} ${last}` };
    });
    const started = Date.parse('2026-01-01T00:00:00Z');
    const at = (i: number) => new Date(started + i * 1000).toISOString();
    await inParallel(customers.length, APPENDERS, async (i) => {
      const c = customers[i];
      const event: NewEvent = { id: randomUUID(), type: 'CustomerCreated', data: { customer_id: c.id, business_id: businessId, mode: 'test', email: c.email, name: c.name, note: '', origin: 'api' }, metadata: { occurredAt: at(i) } };
      await store.append(`customer-${c.id}`, [event], 'no_stream');
    });
    const payments: { id: string; reference: string }[] = [];
    await inParallel(PAYMENTS, APPENDERS, async (i) => {
      const c = customers[i % customers.length];
      const id = randomId('pmt_');
      const reference = `INV-${randomId('', 10)}`;
      payments.push({ id, reference });
      const data = {
        payment_id: id,
        amount: 500 + ((i * 37) % 50_000),
        currency: 'USD',
        fee_payer: 'business',
        fee_rate_bps: 100,
        customer_fee: 0,
        link_id: null,
        expires_at: null,
        business_id: businessId,
        mode: 'test',
        code: randomId('', 16),
        description: `Order ${i}: ${pick(PRODUCTS)}`,
        reference,
        metadata: { order: `ord_${i}`, channel: pick(['web', 'shop', 'phone']) },
        customer_id: c.id,
        customer_email: c.email,
        success_url: null,
        cancel_url: null,
      };
      await store.append(`payment-${id}`, [{ id: randomUUID(), type: 'PaymentCreated', data, metadata: { occurredAt: at(CUSTOMERS + i) } }], 'no_stream');
    });
    const seeded = (performance.now() - seedStart) / 1000;
    process.stderr.write(`[bench] appended ${CUSTOMERS} customers and ${PAYMENTS} payments in ${seeded.toFixed(1)} s; projections catching up…\n`);
    const catchUpStart = performance.now();
    // every projection at the head, and the head is every append (a position read while some other transaction is open can be short of it)
    const deadline = Date.now() + 30 * 60_000;
    for (;;) {
      const head = (await store.headPosition())!;
      if (!(await app.get(ProjectionRunner).waitFor(head, deadline - Date.now()))) throw new Error('the projections did not catch up in 30 minutes');
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM search_documents WHERE business_id = $1`, [businessId]);
      if (rows[0].n >= PAYMENTS + CUSTOMERS || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const caughtUp = (performance.now() - catchUpStart) / 1000;
    const { rows: counted } = await db.query<{ kind: string; n: number }>(`SELECT kind, count(*)::int AS n FROM search_documents WHERE business_id = $1 GROUP BY kind ORDER BY kind`, [businessId]);
    const { rows: inPayments } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM payments WHERE business_id = $1`, [businessId]);
    process.stderr.write(`[bench] projections at the head after ${caughtUp.toFixed(1)} s: ${JSON.stringify(counted)}, payments table ${inPayments[0].n}\n`);
    const indexed = Object.fromEntries(counted.map((r) => [r.kind, r.n]));
    if (indexed.payment !== PAYMENTS || indexed.customer !== CUSTOMERS || inPayments[0].n !== PAYMENTS) errors.push(`seeded ${PAYMENTS} payments and ${CUSTOMERS} customers, indexed ${JSON.stringify(indexed)}, payments table ${inPayments[0].n}`);
    await db.query('ANALYZE');

    // ---- measure
    const call = async (path: string): Promise<{ data: unknown[] }> => {
      const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text}`);
      return JSON.parse(text);
    };
    const queries: Record<Call, () => string> = {
      'GET /payments/{id} (baseline)': () => `/payments/${pick(payments).id}`,
      'search: exact id': () => `/search?q=${pick(payments).id}`,
      'search: e-mail': () => `/search?q=${encodeURIComponent(pick(customers).email)}`,
      'search: word prefix': () => `/search?q=${pick(LAST.slice(0, Math.ceil(CUSTOMERS / FIRST.length))).slice(0, 5)}`,
      'search: substring': () => `/search?q=${pick(payments).reference.slice(6, 13)}`,
    };
    const latencies = new Map<Call, number[]>(CALLS.map((c) => [c, []]));
    const matched = new Map<Call, number[]>(CALLS.map((c) => [c, []]));
    for (const c of CALLS) for (let i = 0; i < 20; i++) await call(queries[c]()); // warm-up
    for (let i = 0; i < REQUESTS; i++) {
      for (const c of CALLS) {
        const path = queries[c]();
        try {
          const t0 = performance.now();
          const body = await call(path);
          latencies.get(c)!.push(performance.now() - t0);
          if (c !== CALLS[0] && body.data.length === 0) errors.push(`${path}: no result`);
        } catch (error) {
          errors.push(error instanceof Error ? error.message : String(error));
        }
      }
    }
    // how many documents each kind of query matches (for the table)
    for (const c of CALLS.slice(1)) {
      for (let i = 0; i < 5; i++) {
        const q = normaliseQuery(decodeURIComponent(queries[c]().slice('/search?q='.length)));
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM search_documents WHERE business_id = $1 AND (exact @> ARRAY[$2::text] OR text LIKE $3)`,
          [businessId, q.text, q.like],
        );
        matched.get(c)!.push(rows[0].n);
      }
    }

    console.log(`\nSearch benchmark (PostgreSQL) — ${new Date().toISOString()} — ${CUSTOMERS} customers, ${PAYMENTS} payments in one business, 1 client, ${REQUESTS} requests per call, Node ${process.version}\n`);
    console.log(`seeding: ${seeded.toFixed(1)} s to append, ${caughtUp.toFixed(1)} s for every projection to catch up\n`);
    const header = ['call', 'matches', 'p50 ms', 'p99 ms', 'max ms'];
    const rows = CALLS.map((c) => {
      const values = latencies.get(c)!;
      const m = matched.get(c)!;
      return [c, m.length ? `${Math.min(...m)}–${Math.max(...m)}` : '1', pct(values, 50).toFixed(1), pct(values, 99).toFixed(1), Math.max(...values).toFixed(1)];
    });
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
    const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
    console.log([line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n'));
    const worst = Math.max(...CALLS.slice(1).map((c) => pct(latencies.get(c)!, 99)));
    console.log(`\nworst search p99 ${worst.toFixed(1)} ms (target < 50 ms): ${worst < 50 ? 'met' : 'NOT met'}; errors ${errors.length}`);
    saveResults('search', { customers: CUSTOMERS, payments: PAYMENTS, seeded, caughtUp, latencies: Object.fromEntries(latencies), matched: Object.fromEntries(matched), errors });
  } finally {
    await app.close();
    if (process.env.BENCH_KEEP) process.stderr.write(`[bench] kept the database: ${env.DATABASE_URL}\n`);
    else await cleanup();
  }
  failOnErrors([{ store: 'postgres', errors }]);
}

runBench(main);
