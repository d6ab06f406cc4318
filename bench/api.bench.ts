/**
 * `npm run bench:api`: the API under load, at concurrency 32, in one run per store:
 *   - a bare unauthenticated route (GET /api/v1/health/live: no store, no key),
 *   - an authenticated route (GET /api/v1/business: key lookup, guard, projection read),
 *   - an authenticated list (GET /api/v1/payments?limit=25: key lookup, guard, a page of 25
 *     payment views with their timelines out of 200 seeded payments, cursor).
 * The load comes from autocannon in a child process (its own core's worth of time on a
 * 2-core machine; the server and the generator share the machine as they would in CI).
 *
 * Env: BENCH_SECONDS (default 5), BENCH_CONNECTIONS (32), BENCH_STORES (embedded,postgres),
 * BENCH_DATABASE_URL (admin URL of the PostgreSQL server).
 */
import { spawn } from 'node:child_process';
import { AddressInfo } from 'node:net';
import { openBenchStore } from './support/bench-store';
import { BusinessService } from '../libs/businesses/src';
import { loadConfig } from '../libs/core/src';
import { createApiApp } from '../apps/api/src/bootstrap';
import { runBench, saveResults } from './support/report';

const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 32);
const STORES = (process.env.BENCH_STORES || 'embedded,postgres').split(',').map((s) => s.trim());

interface Cell {
  store: string;
  route: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

function autocannon(url: string, headers: Record<string, string>, seconds: number): Promise<{ rps: number; p50: number; p99: number; non2xx: number }> {
  const args = [require.resolve('autocannon/autocannon.js'), '-c', String(CONNECTIONS), '-d', String(seconds), '-j'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err}`));
      const result = JSON.parse(out);
      resolve({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx });
    });
  });
}

async function benchStore(store: string): Promise<Cell[]> {
  const { env, cleanup } = await openBenchStore(store, 'api');
  const app = await createApiApp(loadConfig(env, []), { logLevel: 'silent' });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/api/v1`;
  try {
    const { secret_key } = await app.get(BusinessService).createBusiness({ name: 'Bench', simulated: true });
    const auth = { authorization: `Bearer ${secret_key}` };
    for (let i = 0; i < 200; i++) {
      const created = await fetch(`${base}/payments`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 1_000 + i, currency: 'USD', description: `Seed ${i}`, metadata: { seq: String(i) } }),
      });
      if (created.status !== 201) throw new Error(`seeding payments: ${created.status} ${await created.text()}`);
    }
    const cells: Cell[] = [];
    for (const [route, headers] of [
      ['GET /health/live (bare)', {}],
      ['GET /business (authenticated)', auth],
      ['GET /payments?limit=25 (authenticated list)', auth],
    ] as const) {
      const url = `${base}${route.split(' ')[1]}`;
      await autocannon(url, headers, 1); // warm-up
      const result = await autocannon(url, headers, SECONDS);
      cells.push({ store, route, ...result });
      process.stderr.write(`[bench] ${store} ${route}: ${Math.round(result.rps)} req/s\n`);
    }
    return cells;
  } finally {
    await app.close();
    await cleanup();
  }
}

async function main(): Promise<void> {
  const cells: Cell[] = [];
  for (const store of STORES) cells.push(...(await benchStore(store)));
  const rows = cells.map((c) => {
    const bare = cells.find((b) => b.store === c.store && b.route.includes('bare'))!;
    return [c.store, c.route, Math.round(c.rps).toLocaleString('en-US'), c.p50.toFixed(1), c.p99.toFixed(1), String(c.non2xx), `${(c.rps / bare.rps).toFixed(2)}×`];
  });
  const header = ['store', 'route', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'vs bare'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`\nAPI benchmark — ${new Date().toISOString()} — ${CONNECTIONS} connections, ${SECONDS} s per cell, Node ${process.version}\n`);
  console.log([line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n'));
  saveResults('api', cells);
  if (cells.some((c) => c.non2xx > 0)) {
    console.error('some responses were not 2xx: the numbers above are not valid');
    process.exitCode = 1;
  }
}

runBench(main);
