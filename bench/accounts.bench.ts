/**
 * `npm run bench:accounts` (issue 14 point 11; decisions 0033, 0034): people's hot paths on
 * PostgreSQL, the app in this process (as bench:search), a real SMTP server for the sign-up code.
 * Closed loop, BENCH_CONNECTIONS (16) requests in flight, BENCH_ROUNDS (3) rounds of
 * BENCH_REQUESTS (200) per cell after a warm-up; medians over the rounds. Cells:
 *   bare argon2   PasswordHasher.verify of the person's own PHC string (the app's argon2id
 *                 parameters), the same concurrency: the floor of a sign-in
 *   sign-in       POST /sessions (e-mail + password; a fresh test challenge token and its own
 *                 X-Forwarded-For address per request, so neither the bot check's single use nor
 *                 the per-IP limit refuses): argon2id should dominate → ratio near 1
 *   GET /business with the API key vs with the session cookie + Service-Business (the session's
 *                 lookup is one indexed read; the key's is cached): ratio near 1
 * Env: BENCH_CONNECTIONS (16), BENCH_REQUESTS (200), BENCH_ROUNDS (3), BENCH_DATABASE_URL.
 */
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createApiApp } from '../apps/api/src/bootstrap';
import { BusinessService } from '../libs/businesses/src';
import { testChallengeToken } from '../libs/challenge/src';
import { loadConfig } from '../libs/core/src';
import { PasswordHasher } from '../libs/passwords/src';
import { codeIn, startSmtpServer } from '../test/support/smtp';
import { openBenchStore } from './support/bench-store';
import { failOnErrors, runBench, saveResults } from './support/report';
import { benchNumbers } from './support/settings';

const { CONNECTIONS, REQUESTS, ROUNDS } = benchNumbers({ CONNECTIONS: 16, REQUESTS: 200, ROUNDS: 3 });
const PASSWORD = 'a long bench passphrase 42';

interface Cell {
  rate: number;
  p50: number;
  p99: number;
}

const pct = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1];

/** `total` calls of `one`, `CONNECTIONS` at a time: the rate and the latencies. */
async function closedLoop(total: number, one: (i: number) => Promise<void>): Promise<Cell> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await one(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { rate: (total / (performance.now() - started)) * 1000, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

async function rounds(one: (i: number) => Promise<void>): Promise<Cell> {
  await closedLoop(Math.min(REQUESTS, 32), one); // warm-up
  const cells: Cell[] = [];
  for (let r = 0; r < ROUNDS; r++) cells.push(await closedLoop(REQUESTS, one));
  return { rate: median(cells.map((c) => c.rate)), p50: median(cells.map((c) => c.p50)), p99: median(cells.map((c) => c.p99)) };
}

async function main(): Promise<void> {
  const smtp = await startSmtpServer();
  const { env, cleanup } = await openBenchStore('postgres', 'accounts', { SMTP_URL: smtp.url, MAIL_FROM: 'Bench <bench@localhost>', CHALLENGE_PROVIDER: 'test', TRUSTED_PROXIES: 'loopback' });
  const app = await createApiApp(loadConfig(env, []), { logLevel: process.env.BENCH_LOG_LEVEL === 'warn' ? 'warn' : 'silent' });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/api/v1`;
  const errors: string[] = [];
  let ip = 0;
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const answer = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip++ & 255}`, ...headers }, body: JSON.stringify(body) });
    return { status: answer.status, body: (await answer.json()) as { data: Record<string, unknown> }, cookies: answer.headers.getSetCookie() };
  };
  const expect = (what: string, status: number, wanted: number) => {
    if (status !== wanted && errors.length < 20) errors.push(`${what}: ${status}`);
  };
  try {
    // one person, signed up as a browser does
    const email = 'ada@people.example';
    const started = await post('/accounts', { email, password: PASSWORD, business_name: 'Bench shop', simulated: true }, { 'service-challenge': testChallengeToken('sign_up') });
    if (started.status !== 201) throw new Error(`sign-up: ${started.status} ${JSON.stringify(started.body)}`);
    const code = codeIn(await smtp.waitForMessage((m) => m.to.includes(email)));
    const verified = await post('/accounts/verify', { signup_id: started.body.data.id, code }, { cookie: started.cookies.map((c) => c.split(';')[0]).join('; ') });
    expect('verify', verified.status, 201);
    const cookie = verified.cookies.map((c) => c.split(';')[0]).join('; ');
    const personBusiness = (verified.body.data.account as { businesses: { id: string }[] }).businesses[0].id;
    const keyed = await app.get(BusinessService).createBusiness({ name: 'Bench keys', simulated: true });

    // a PHC string like the one sign-in checks: the same password, the library's default parameters (the app's)
    const hasher = new PasswordHasher();
    const phc = await hasher.hash(PASSWORD);
    const bare = await rounds(async () => {
      if (!(await hasher.verify(phc, PASSWORD))) errors.push('bare verify refused');
    });
    const signIn = await rounds(async () => {
      const answer = await post('/sessions', { email, password: PASSWORD }, { 'service-challenge': testChallengeToken('sign_in') });
      expect('sign-in', answer.status, 201);
    });
    const get = (headers: Record<string, string>) => async () => {
      const answer = await fetch(`${base}/business`, { headers });
      await answer.arrayBuffer();
      expect('GET /business', answer.status, 200);
    };
    const byKey = await rounds(get({ authorization: `Bearer ${keyed.secret_key}` }));
    const bySession = await rounds(get({ cookie, 'service-business': personBusiness }));

    const row = (name: string, cell: Cell, baseline?: Cell) =>
      `| ${name.padEnd(34)} | ${cell.rate.toFixed(1).padStart(8)}/s | ${cell.p50.toFixed(1).padStart(7)} ms | ${cell.p99.toFixed(1).padStart(7)} ms | ${baseline ? `${(cell.rate / baseline.rate).toFixed(2)}×` : 'baseline'} |`;
    console.log(`\nbench:accounts — PostgreSQL, ${CONNECTIONS} in flight, ${ROUNDS} rounds of ${REQUESTS}, medians\n`);
    console.log('| cell | rate | p50 | p99 | vs baseline |');
    console.log('|---|--:|--:|--:|--:|');
    console.log(row('argon2id verify (bare library call)', bare));
    console.log(row('POST /sessions (sign-in)', signIn, bare));
    console.log(row('GET /business, API key', byKey));
    console.log(row('GET /business, session cookie', bySession, byKey));
    saveResults('accounts', { connections: CONNECTIONS, requests: REQUESTS, rounds: ROUNDS, bare, signIn, byKey, bySession, errors });
  } finally {
    await app.close();
    await smtp.close();
    await cleanup();
  }
  failOnErrors([{ store: 'postgres', errors }]);
}

runBench(main);
