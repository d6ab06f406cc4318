import { Contract, coveredUrl } from './contract';

/**
 * Jest setup (setupFilesAfterEnv in jest.config.js), for every test file: wraps global fetch so
 * that every answer from http://127.0.0.1:<port>/api/v1/... is checked against the OpenAPI
 * document that same server serves (test/support/contract.ts). A violation is recorded and
 * fails the test it happened in (afterEach), or the file (afterAll) when it happened in a
 * beforeAll/afterAll hook. Set CONTRACT_CHECKS=off to run without (to see a test's own failure).
 */

const original = globalThis.fetch;
const violations: string[] = [];

interface Served {
  contract: Promise<Contract | Error>;
  at: number;
}
/** One document per server (origin); fetched again at most once a second when a route is missing (another server on a reused port). */
const served = new Map<string, Served>();

function documentOf(origin: string, again = false): Promise<Contract | Error> {
  const known = served.get(origin);
  if (known && (!again || Date.now() - known.at < 1000)) return known.contract;
  const contract = original(`${origin}/api/v1/openapi.json`)
    .then(async (response) => (response.status === 200 ? new Contract(await response.json()) : new Error(`GET ${origin}/api/v1/openapi.json answered ${response.status}`)))
    .catch((error: Error) => error);
  served.set(origin, { contract, at: Date.now() });
  return contract;
}

function urlOf(input: string | URL | Request): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

async function check(method: string, url: string, origin: string, response: Response): Promise<void> {
  const body = await response.clone().text();
  const exchange = { method, url, status: response.status, contentType: response.headers.get('content-type'), body };
  let contract = await documentOf(origin);
  if (contract instanceof Error) {
    violations.push(`${method} ${url} → ${response.status}: no OpenAPI document to check it against (${contract.message})`);
    return;
  }
  let problems = contract.check(exchange);
  if (problems.length > 0 && !contract.knows(new URL(url).pathname.slice('/api/v1'.length))) {
    const fresh = await documentOf(origin, true);
    if (!(fresh instanceof Error)) {
      contract = fresh;
      problems = contract.check(exchange);
    }
  }
  for (const problem of problems) violations.push(`${method} ${url} → ${problem}`);
}

if (process.env.CONTRACT_CHECKS !== 'off') {
  globalThis.fetch = async function contractFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = urlOf(input);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const response = await original(input, init);
    const covered = coveredUrl(url);
    if (covered) await check(method, url, covered.origin, response);
    return response;
  } as typeof fetch;
}

function report(when: string): void {
  if (violations.length === 0) return;
  const found = violations.splice(0);
  throw new Error(`${found.length} response(s) ${when} do not keep the OpenAPI contract (test/support/contract.ts):\n- ${found.join('\n- ')}`);
}

afterEach(() => report('in this test'));
afterAll(() => report('in a beforeAll/afterAll hook'));
