import { Writable } from 'node:stream';
import type { DestinationStream } from 'pino';
import { AccountsModule } from '@lib/accounts';
import { testChallengeToken } from '@lib/challenge';
import { ConcurrencyError, EVENT_STORE, EventStore, ExpectedRevision } from '@lib/eventstore';
import { TestApi, startTestApi } from '../support/api-app';
import { closeInTurn } from '../support/close';
import { eventually } from '../support/eventually';
import { StoreKind, testStorage } from '../support/fixtures';
import { TestSmtpServer, codeIn, startSmtpServer } from '../support/smtp';

/** The test SMTP server (test/support/smtp.ts) with the lookups these tests make: the n-th code sent to an address. */
export interface TestSmtp {
  server: TestSmtpServer;
  url: string;
  /** The 6-digit code of the n-th message to `to` (default the last one), waited for with a deadline. */
  code(to: string, nth?: number): Promise<string>;
  countTo(to: string): number;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const server = await startSmtpServer();
  const to = (address: string) => server.messages.filter((m) => m.to.includes(address.toLowerCase()) || m.to.includes(address));
  return {
    server,
    url: server.url,
    countTo: (address) => to(address).length,
    async code(address, nth) {
      const mail = await eventually(() => (nth === undefined ? to(address).at(-1) : to(address)[nth - 1]), { what: `e-mail ${nth ?? 'last'} to ${address}` });
      return codeIn(mail);
    },
    close: () => server.close(),
  };
}

/** A clock the test moves (the accounts capability's ACCOUNTS_CLOCK): wall time plus an offset. */
export class TestClock {
  private offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface AccountsTestApp {
  api: TestApi;
  smtp: TestSmtp;
  clock: TestClock;
  close(): Promise<void>;
}

/**
 * The real app on a fresh store of `kind`, with the accounts capability on a test clock, e-mail
 * to a real SMTP server, and the test bot-challenge verifier (tokens from `challenge(form)`).
 */
export async function startAccountsApp(kind: StoreKind = 'embedded', env: NodeJS.ProcessEnv = {}, logDestination?: DestinationStream, modules: NonNullable<Parameters<typeof startTestApi>[1]> = []): Promise<AccountsTestApp> {
  const smtp = await startSmtp();
  const clock = new TestClock();
  const storage = await testStorage(kind, 'acc');
  const api = await startTestApi(
    { TRUSTED_PROXIES: 'loopback', SMTP_URL: smtp.url, MAIL_FROM: 'Payments <no-reply@payments.test>', CHALLENGE_PROVIDER: 'test', ...storage.env, ...env },
    [AccountsModule.forRoot({ clock: clock.now }), ...modules],
    logDestination,
  );
  return {
    api,
    smtp,
    clock,
    close: () => closeInTurn(api, () => storage.cleanup(), smtp),
  };
}

/** The app of a describe block, with every log line it wrote (for the never-in-a-log checks). */
export interface SuiteAccountsApp extends AccountsTestApp {
  readonly logs: string[];
  /** The service's own origin (what a browser on its pages sends, and a passkey is bound to). */
  readonly origin: string;
}

/**
 * Called in a describe block: startAccountsApp on a fresh store of `kind` before its tests,
 * closed after them; with `logs` (default), every line it logs kept in `logs`, else the app
 * silent. What it answers stands for the app once started.
 */
export function accountsAppForSuite({ kind = 'embedded', logs: keepLogs = true }: { kind?: StoreKind; logs?: boolean } = {}): SuiteAccountsApp {
  const logs: string[] = [];
  let started: AccountsTestApp | undefined;
  const app = (): AccountsTestApp => {
    if (!started) throw new Error('the suite’s accounts app is not started: use it inside tests');
    return started;
  };
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    });
    started = await startAccountsApp(kind, {}, keepLogs ? sink : undefined);
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    logs,
    get api() {
      return app().api;
    },
    get smtp() {
      return app().smtp;
    },
    get clock() {
      return app().clock;
    },
    get origin() {
      return new URL(app().api.base).origin;
    },
    close: () => app().close(),
  };
}

let browsers = 0;

/**
 * A browser: a cookie jar (it sends back what the service set, and forgets what it cleared), one
 * client address, and the service's own Origin on every request unless told otherwise.
 */
export class Browser {
  readonly jar = new Map<string, string>();
  readonly ip: string;
  setCookies: string[] = [];

  constructor(
    readonly api: TestApi,
    readonly origin: string | null = new URL(api.base).origin,
  ) {
    const n = ++browsers;
    this.ip = `172.16.${(n >> 8) & 255}.${n & 255}`;
  }

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(`${this.api.base}${path}`, {
      method,
      headers: {
        'x-forwarded-for': this.ip,
        ...(this.origin ? { origin: this.origin } : {}),
        ...(cookie ? { cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    this.setCookies = response.headers.getSetCookie();
    for (const line of this.setCookies) {
      const [pair, ...attributes] = line.split(';').map((p) => p.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === '' || attributes.some((a) => a.toLowerCase() === 'max-age=0')) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.call('GET', path, undefined, headers);
  }

  post(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.call('POST', path, body, headers);
  }

  delete(path: string, headers: Record<string, string> = {}) {
    return this.call('DELETE', path, undefined, headers);
  }

  /** A request acting for a business (Service-Business). */
  forBusiness(businessId: string) {
    const headers = { 'service-business': businessId };
    return {
      get: (path: string, more: Record<string, string> = {}) => this.get(path, { ...headers, ...more }),
      post: (path: string, body?: unknown, more: Record<string, string> = {}) => this.post(path, body, { ...headers, ...more }),
    };
  }
}

export const PASSWORD = 'correct horse battery staple';
/** A Service-Challenge header with a fresh token of the test verifier for `form` (each passes once). */
export const challenge = (form: 'sign_up' | 'sign_in') => ({ 'service-challenge': testChallengeToken(form) });

let people = 0;
export const newEmail = (what = 'person') => `${what}${++people}.${Date.now()}@people.example`;

/** Signs up and verifies in `browser`: the person's account, first business id and session. */
export async function signUp(app: AccountsTestApp, browser: Browser, email = newEmail(), businessName = 'Corner Shop', simulated = true) {
  const started = await browser.post('/accounts', { email, password: PASSWORD, business_name: businessName, simulated }, challenge('sign_up'));
  if (started.status !== 201) throw new Error(`sign-up: ${started.status} ${JSON.stringify(started.body)}`);
  const code = await app.smtp.code(email);
  const verified = await browser.post('/accounts/verify', { signup_id: started.body.data.id, code });
  if (verified.status !== 201) throw new Error(`verify: ${verified.status} ${JSON.stringify(verified.body)}`);
  return { email, signupId: started.body.data.id as string, account: verified.body.data.account, session: verified.body.data.session, businessId: verified.body.data.account.businesses[0].id as string };
}

/**
 * A person signed up in a new browser whose session has stepped up, acting for their first
 * business (simulated unless `business.simulated` is false): `as` sends its Service-Business
 * header on every request.
 */
export async function steppedUpOwner(app: AccountsTestApp, business: { name?: string; simulated?: boolean } = {}) {
  const b = new Browser(app.api);
  const person = await signUp(app, b, undefined, business.name, business.simulated);
  expect((await b.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
  const h = { 'service-business': person.businessId };
  const as = {
    get: (path: string) => b.get(path, h),
    post: (path: string, body?: unknown, more: Record<string, string> = {}) => b.post(path, body, { ...h, ...more }),
    patch: (path: string, body: unknown) => b.call('PATCH', path, body, h),
    delete: (path: string) => b.delete(path, h),
  };
  return { b, person, as, businessId: person.businessId };
}

/** Signs in with a password in `browser`. */
export function signIn(browser: Browser, email: string, password = PASSWORD) {
  return browser.post('/sessions', { email, password }, challenge('sign_in'));
}

/**
 * `n` browsers sign one new person in at once (issue #14; decision 0034): all answer 201 with
 * distinct sessions, all listed and usable; and each sign-in is one append to the person's stream
 * at `any` revision (StartSession does not contend), none refused with a concurrency conflict
 * and retried. Watched on the app's own event store, which the command runner appends through.
 */
export async function expectConcurrentSignIns(app: AccountsTestApp, n: number): Promise<void> {
  const { email, account } = await signUp(app, new Browser(app.api));
  const stream = `account-${account.id}`;
  const store = app.api.app.get<EventStore>(EVENT_STORE);
  const append = store.append;
  const expected: ExpectedRevision[] = [];
  const conflicts: unknown[] = [];
  store.append = async (name, events, revision) => {
    if (name === stream) expected.push(revision);
    try {
      return await append.call(store, name, events, revision);
    } catch (error) {
      if (error instanceof ConcurrencyError) conflicts.push(error);
      throw error;
    }
  };
  try {
    const browsers = Array.from({ length: n }, () => new Browser(app.api));
    const answers = await Promise.all(browsers.map((b) => signIn(b, email)));
    expect(answers.map((a) => a.status)).toEqual(Array(n).fill(201));
    const ids = answers.map((a) => a.body.data.id as string);
    expect(new Set(ids).size).toBe(n);
    expect(conflicts).toEqual([]);
    expect(expected).toEqual(Array(n).fill('any'));
    const listed = (await browsers[0].get('/sessions')).body.data.map((s: { id: string }) => s.id);
    expect(listed).toHaveLength(n + 1); // and the sign-up's
    expect(listed).toEqual(expect.arrayContaining(ids));
    for (const b of browsers) expect((await b.get('/me')).status).toBe(200);
  } finally {
    store.append = append;
  }
}

/**
 * Holds a list of the signed-in person (GET /sessions, GET /me/passkeys) to the paging of every
 * list (spec §2 Lists, §8): `limit=1` pages, each of one row, walk the whole list in the order of
 * the unpaged answer (has_more true and a next_cursor until the last); a bad limit, an unknown
 * parameter, a malformed cursor and each of `foreignCursors` (another list's, another person's)
 * are 400 invalid_request naming the field. Returns the unpaged answer's rows.
 */
export async function expectPagedList<T extends { id: string }>(b: Browser, path: string, foreignCursors: string[]): Promise<T[]> {
  const all = await b.get(path);
  expect([all.status, all.body.has_more, all.body.next_cursor]).toEqual([200, false, null]);
  const rows = all.body.data as T[];
  expect(rows.length).toBeGreaterThan(1);
  const walked: T[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < rows.length; i++) {
    const page = await b.get(`${path}?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`);
    const last = i === rows.length - 1;
    expect([page.status, page.body.data.length, page.body.has_more, page.body.next_cursor === null]).toEqual([200, 1, !last, last]);
    walked.push(...(page.body.data as T[]));
    cursor = page.body.next_cursor;
  }
  expect(walked).toEqual(rows);
  const bad: [string, string][] = [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['foo=1', 'foo'],
    ['cursor=zzz', 'cursor'],
    ...foreignCursors.map((c): [string, string] => [`cursor=${c}`, 'cursor']),
  ];
  for (const [query, field] of bad) {
    const refused = await b.get(`${path}?${query}`);
    expect([query, refused.status, refused.body.error.code, refused.body.error.field]).toEqual([query, 400, 'invalid_request', field]);
  }
  return rows;
}
