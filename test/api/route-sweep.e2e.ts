import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { testChallengeToken } from '@lib/challenge';
import { EVENT_STORE, EventStore, LogPosition } from '@lib/eventstore';
import { Browser, startAccountsApp, steppedUpOwner } from '../accounts/support';
import { Client, appPerSuite, businessWithKey } from '../support/fixtures';
import { committedHead } from '../support/log-head';

/**
 * A sweep of every route of the OpenAPI document the app serves (so routes added later are swept
 * too), with a business's secret key, a signed-in person's session or nothing, as the document's
 * `x-auth` says:
 *
 * - every route that takes a body: `null`, `[]`, `"x"`; each field of the wrong type (on an
 *   otherwise valid body); an unknown field; a 100 kB string in each string field;
 * - every route with an id: a well-formed id of another business (404 not_found; public routes
 *   aside, whose ids are meant to be shared) and malformed ids (404 not_found);
 * - every list: unknown query parameters and bad pages (limit 0, 101, abc, …; bad, foreign and
 *   tampered cursors), spec §8.
 *
 * Every answer: never a 5xx; the §7 envelope (exactly `error` with code, message, field,
 * request_id equal to Service-Request-Id) with the status and code expected, the code among those
 * the document lists for that route and status; and nothing appended to the event log.
 */

type Method = 'get' | 'post' | 'patch' | 'delete' | 'put';
const METHODS: readonly Method[] = ['get', 'post', 'patch', 'delete', 'put'];

interface Route {
  method: Method;
  path: string;
  op: OperationObject & { 'x-auth'?: string; 'x-challenge'?: string };
  /** The body's schema (resolved), or null when the route takes none. */
  body: SchemaObject | null;
}

/** The kind of the object a path's id names, by the collection before it. */
const ID_KINDS: Readonly<Record<string, string>> = {
  payments: 'pmt',
  checkouts: 'chk',
  'card-attempts': 'att',
  customers: 'cst',
  links: 'lnk',
  webhooks: 'whk',
  webhook_deliveries: 'dlv',
  events: 'evt',
  transactions: 'wtx',
  'wallet-changes': 'wcr',
  businesses: 'biz',
  'api-keys': 'key',
  sessions: 'ses',
  passkeys: 'pky',
  receipts: 'pmt',
  referrals: 'ref',
};

/**
 * A valid body of each route whose body has required fields: the sweep changes one field at a
 * time on it, so the answer must name that field. A new route with required fields gets its
 * entry here (the sweep says which is missing).
 */
const VALID_BODIES: Readonly<Record<string, Record<string, unknown>>> = {
  'POST /businesses/{id}/alert-email/confirm': { code: '123456' },
  'POST /payments': { amount: 2500, currency: 'USD' },
  'POST /checkouts/{id}/claim': { tx_hash: `0x${'ab'.repeat(32)}` },
  'POST /test_clock/advance': { seconds: 60 },
  'POST /customers': { email: 'sweep@example.com' },
  'POST /links': { name: 'Mug', amount: 1500, currency: 'USD' },
  'POST /wallet/transactions': { asset: 'USDC', network: 'ethereum', amount: '1', to_address: `0x${'12'.repeat(20)}` },
  'POST /wallet-changes/cancel': { token: 'token' },
  'POST /accounts': { email: 'sweep@people.example', business_name: 'Sweep' },
  'POST /accounts/verify': { signup_id: 'sgn_sweep', code: '123456' },
  'POST /accounts/passkey-options': { signup_id: 'sgn_sweep' },
  'POST /accounts/verify/resend': { signup_id: 'sgn_sweep' },
  'POST /sessions/two-factor': { challenge_id: 'tfs_sweep' },
  'POST /sessions': { email: 'sweep@people.example', password: 'not the password' },
  'POST /me/password': { current_password: 'not the password', new_password: 'a new long passphrase' },
  'POST /me/two-factor': { code: '123456', current_password: 'not the password' },
  'POST /me/two-factor/disable': { current_password: 'not the password' },
  'POST /me/passkeys': { credential: { id: 'AA', rawId: 'AA', type: 'public-key', response: { clientDataJSON: 'AA', attestationObject: 'AA' } } },
  'POST /passkeys/authentication/verify': { credential: { id: 'AA', rawId: 'AA', type: 'public-key', response: { clientDataJSON: 'AA', authenticatorData: 'AA', signature: 'AA' } } },
  'POST /password-resets': { email: 'sweep@people.example' },
  'POST /password-resets/check': { token: 'token' },
  'POST /password-resets/confirm': { new_password: 'a new long passphrase', token: 'token' },
  'POST /me/email': { email: 'sweep@people.example', current_password: 'not the password' },
  'POST /me/email/verify': { code: '123456' },
  'POST /email-changes/undo': { token: 'token' },
  'POST /api-keys': { type: 'secret', mode: 'test' },
  'POST /businesses': { name: 'Sweep' },
  // every PATCH route refuses an empty change (@ChangeBody: 400 before the id is looked at)
  'PATCH /customers/{id}': { name: 'Zed' },
  'PATCH /links/{id}': { name: 'Zed' },
  'PATCH /payments/{id}': { metadata: { sweep: '1' } },
  'PATCH /businesses/{id}': { product_updates: true },
  'PATCH /checkout-settings': { ask_email: false },
  'PATCH /webhooks/{id}': { enabled: true },
  'PATCH /api-keys/{id}': { name: 'Zed' },
  'POST /webhooks': { url: 'https://hooks.example.com/in', event_types: ['payment.succeeded'] },
};

const MALFORMED_IDS = ['x', 'pmt_', 'pmt_%27%22%3C', `pmt_${'a'.repeat(300)}`, '%2E%2E', 'null', '0'];
const BIG = 'a'.repeat(100 * 1024);

/** A value of the wrong type for a property of `schema`, or null when its type is not one. */
function wrongValue(schema: SchemaObject): unknown {
  switch (schema.type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return '12'; // a numeric string: refused, never read as a number
    case 'boolean':
      return 'true';
    case 'array':
      return 'x';
    case 'object':
      return 'x';
    default:
      return schema.allOf || schema.oneOf || ('$ref' in schema && schema.$ref) ? 'x' : null;
  }
}

function resolve(doc: OpenAPIObject, schema: SchemaObject | ReferenceObject): SchemaObject {
  if ('$ref' in schema) return doc.components!.schemas![schema.$ref.split('/').pop()!] as SchemaObject;
  return schema;
}

function routesOf(doc: OpenAPIObject): Route[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method): Route => {
      const op = item[method]! as Route['op'];
      const schema = (op.requestBody as { content?: Record<string, { schema?: SchemaObject | ReferenceObject }> } | undefined)?.content?.['application/json']?.schema;
      return { method, path, op, body: schema ? resolve(doc, schema) : null };
    }),
  );
}

const name = (r: Route) => `${r.method.toUpperCase()} ${r.path}`;
const queryParams = (r: Route) => ((r.op.parameters ?? []) as ParameterObject[]).filter((p) => p.in === 'query');
const isList = (r: Route) => r.method === 'get' && queryParams(r).some((p) => p.name === 'limit');
const idParams = (r: Route) => [...r.path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]);

/** The kind of each id in a route's path (by the segment before it). */
function idKinds(r: Route): Record<string, string | undefined> {
  const segments = r.path.split('/');
  const kinds: Record<string, string | undefined> = {};
  segments.forEach((s, i) => {
    const param = /^\{([A-Za-z_]+)\}$/.exec(s)?.[1];
    if (param) kinds[param] = ID_KINDS[segments[i - 1]];
  });
  return kinds;
}

describe('route sweep: every route of the OpenAPI document refuses client mistakes with the §7 envelope and changes nothing', () => {
  let person: Browser;
  let personBusiness = '';
  let other: Browser;
  let otherBusiness = '';
  /** Ids of the business the key acts for (own), of another business (foreign), by kind. */
  const own: Record<string, string> = {};
  const foreign: Record<string, string> = {};
  /** A real cursor of each list it could get one of (its first page of one). */
  const cursors: Record<string, string> = {};
  let foreignPaymentsCursor = '';

  const suite = appPerSuite(
    async () => {
      const accounts = await startAccountsApp('embedded');
      ({ b: person, businessId: personBusiness } = await steppedUpOwner(accounts));
      // another person with their own business: the session routes' foreign ids
      const otherOwner = await steppedUpOwner(accounts);
      ({ b: other, businessId: otherBusiness } = otherOwner);
      foreign.ses = otherOwner.person.session.id;
      foreign.key = (await other.get('/api-keys', { 'service-business': otherBusiness })).body.data[0].id;
      own.key = (await person.get('/api-keys', { 'service-business': personBusiness })).body.data[0].id;
      return { ...accounts.api, close: accounts.close };
    },
    async (api) => {
      const shop = await businessWithKey(api, true, 'Sweep Shop');
      const rival = await businessWithKey(api, true, 'Rival Shop');
      const store = api.app.get<EventStore>(EVENT_STORE);
      own.biz = shop.business.id;
      foreign.biz = rival.business.id;
      for (const [ids, client] of [
        [own, shop.client],
        [foreign, rival.client],
      ] as const) {
        const payment = await client.createPayment({ customer_email: 'ann@example.com' });
        await client.createPayment();
        ids.pmt = payment.id;
        // a checkout canceled at once: no simulated transfer arrives later
        ids.chk = (await client.openCheckout(payment)).id;
        expect((await client.post(`/checkouts/${ids.chk}/cancel`)).status).toBe(200);
        ids.cst = (await client.created('/customers', { email: 'bob@example.com', name: 'Bob' })).id;
        ids.lnk = (await client.created('/links', { name: 'Mug', amount: 1500, currency: 'USD' })).id;
        await client.post('/links', { name: 'Cup', amount: 900, currency: 'USD' });
        ids.whk = (await client.created('/webhooks', { url: 'https://hooks.example.com/in', event_types: ['payment.succeeded'] })).id;
        await client.post('/webhooks', { url: 'https://hooks.example.com/two', event_types: ['payment.succeeded'] });
      }
      own.evt = (await eventuallyList(shop.client, '/events'))[0].id;
      foreign.evt = (await eventuallyList(rival.client, '/events'))[0].id;
      // cursors of every list that has two entries
      for (const list of ['/payments', '/customers', '/links', '/webhooks', '/events', '/api-keys']) {
        const page = list === '/api-keys' ? await person.get(`${list}?limit=1`, { 'service-business': personBusiness }) : await shop.client.get(`${list}?limit=1`);
        if (page.body?.next_cursor) cursors[list] = page.body.next_cursor;
      }
      cursors['/search'] = (await shop.client.get('/search?q=x&limit=1')).body.next_cursor;
      foreignPaymentsCursor = (await rival.client.get('/payments?limit=1')).body.next_cursor;
      const doc = (await (await fetch(`${api.base}/openapi.json`)).json()) as OpenAPIObject;
      // the log settles (mail, projections) before the sweep compares heads
      await quiet(store);
      return { shop, rival, store, doc, routes: routesOf(doc) };
    },
  );

  async function eventuallyList(client: Client, path: string): Promise<{ id: string }[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const page = await client.get(path);
      if (page.body?.data?.length > 0) return page.body.data;
      if (Date.now() > deadline) throw new Error(`${path} stayed empty`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Waits until the log's head stays put for a second. */
  async function quiet(store: EventStore): Promise<void> {
    const deadline = Date.now() + 20_000;
    let last = JSON.stringify(await committedHead(store), bigints);
    for (;;) {
      await new Promise((r) => setTimeout(r, 1_000));
      const now = JSON.stringify(await committedHead(store), bigints);
      if (now === last) return;
      if (Date.now() > deadline) throw new Error('the log did not settle');
      last = now;
    }
  }
  const bigints = (_: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

  let requests = 0;
  /** Sends one request as the route's `x-auth` says; `body` is raw JSON text. */
  async function send(route: Route, path: string, body?: string, query = ''): Promise<{ status: number; text: string; headers: Headers }> {
    const n = ++requests;
    const headers: Record<string, string> = { 'x-forwarded-for': `10.77.${(n >> 8) & 255}.${n & 255}` };
    const auth = route.op['x-auth'];
    if (auth === 'api_key') headers.authorization = `Bearer ${suite.shop.secret_key}`;
    if (auth === 'dashboard_session') {
      headers.cookie = [...person.jar].map(([k, v]) => `${k}=${v}`).join('; ');
      headers.origin = new URL(suite.api.base).origin;
      headers['service-business'] = personBusiness;
    }
    if (route.op['x-challenge']) headers['service-challenge'] = testChallengeToken(route.op['x-challenge']);
    if (route.method === 'post') headers['idempotency-key'] = `sweep-${n}-${Math.random()}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${suite.api.base}${path}${query}`, { method: route.method.toUpperCase(), headers, body });
    return { status: response.status, text: await response.text(), headers: response.headers };
  }

  interface Expected {
    status: number;
    code?: string;
    /** The field the error must name (a dotted path under it is also fine); undefined: not checked. */
    field?: string | null;
  }

  /**
   * Sends and checks a request that must be refused: what is wrong with the answer, or null.
   * The log's head must not move across it.
   */
  async function refused(route: Route, what: string, path: string, expected: Expected, body?: string, query = ''): Promise<string | null> {
    const before = await committedHead(suite.store);
    const answer = await send(route, path, body, query);
    const after = await committedHead(suite.store);
    const at = `${name(route)} ${what}: ${answer.status} ${answer.text.slice(0, 240)}`;
    if (answer.status >= 500) return `${at} — a 5xx`;
    if (!sameHead(before, after)) return `${at} — the log grew`;
    let parsed: { error?: { code?: unknown; message?: unknown; field?: unknown; request_id?: unknown } } | null = null;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      return `${at} — not JSON`;
    }
    const error = parsed?.error;
    if (!error || Object.keys(parsed!).join() !== 'error' || Object.keys(error).sort().join() !== 'code,field,message,request_id') return `${at} — not the §7 envelope`;
    if (typeof error.message !== 'string' || error.request_id !== answer.headers.get('service-request-id')) return `${at} — message or request_id`;
    if (answer.status !== expected.status) return `${at} — expected ${expected.status}`;
    if (expected.code !== undefined && error.code !== expected.code) return `${at} — expected ${expected.code}`;
    const documented = (route.op.responses[String(answer.status)] as ResponseObject & { 'x-error-codes'?: string[] }) ?? null;
    if (!documented?.['x-error-codes']?.includes(String(error.code))) return `${at} — ${String(error.code)} not documented for ${answer.status}`;
    if (expected.field !== undefined) {
      const field = error.field as string | null;
      const fits = expected.field === null ? field === null : field === expected.field || (field ?? '').startsWith(`${expected.field}.`) || (field ?? '').startsWith(`${expected.field}[`);
      if (!fits) return `${at} — expected field ${String(expected.field)}`;
    }
    return null;
  }

  const sameHead = (a: LogPosition | null, b: LogPosition | null) => JSON.stringify(a, bigints) === JSON.stringify(b, bigints);

  /** The route's path with its ids filled from `ids` (by kind; a kind with none: a well-formed unknown id). */
  function pathWith(route: Route, ids: Record<string, string>, fallback: (kind: string) => string = (k) => `${k}_Sweep0000000000000000000`): string {
    const kinds = idKinds(route);
    return route.path.replace(/\{([A-Za-z_]+)\}/g, (_, param: string) => {
      const kind = kinds[param]!;
      return encodeURIComponent(ids[kind] ?? fallback(kind));
    });
  }

  /** Own ids: the person's business on the session routes, the key's business elsewhere. */
  const ownIds = (route: Route) => (route.op['x-auth'] === 'dashboard_session' ? { ...own, biz: personBusiness } : own);
  const foreignIds = (route: Route) => (route.op['x-auth'] === 'dashboard_session' ? { ...foreign, biz: otherBusiness } : foreign);

  const bodyRoutes = () => suite.routes.filter((r) => r.body !== null);
  const validBody = (route: Route): Record<string, unknown> | null => {
    const required = route.body?.required ?? [];
    return VALID_BODIES[name(route)] ?? (required.length === 0 ? {} : null);
  };

  it('reads the routes from the document: bodies, ids and lists it can sweep', () => {
    expect(suite.routes.length).toBeGreaterThan(90);
    expect(bodyRoutes().length).toBeGreaterThan(35);
    const unknownKinds = suite.routes.flatMap((r) => Object.entries(idKinds(r)).filter(([, k]) => k === undefined).map(([p]) => `${name(r)} {${p}}`));
    expect(unknownKinds).toEqual([]);
    const noValidBody = bodyRoutes().filter((r) => validBody(r) === null).map(name);
    expect(noValidBody).toEqual([]);
    expect(suite.routes.filter(isList).length).toBeGreaterThan(8);
    // GET /search states what q may be (spec §4: required, at most 100 characters), so the sweep tries it
    const q = queryParams(suite.routes.find((r) => name(r) === 'GET /search')!).find((p) => p.name === 'q');
    expect(q).toMatchObject({ required: true, schema: { type: 'string', minLength: 1, maxLength: 100 } });
  });

  it('a body of null, [] or "x" → 400 invalid_request (field null)', async () => {
    const problems: string[] = [];
    for (const route of bodyRoutes()) {
      for (const body of ['null', '[]', '"x"']) {
        const problem = await refused(route, body, pathWith(route, ownIds(route)), { status: 400, code: 'invalid_request', field: null }, body);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  });

  it('each field of the wrong type on an otherwise valid body → 400 naming that field', async () => {
    const problems: string[] = [];
    for (const route of bodyRoutes()) {
      const base = validBody(route)!;
      for (const [field, schema] of Object.entries(route.body!.properties ?? {})) {
        const wrong = wrongValue(resolve(suite.doc, schema));
        if (wrong === null) continue;
        const body = JSON.stringify({ ...base, [field]: wrong });
        const problem = await refused(route, body.slice(0, 120), pathWith(route, ownIds(route)), { status: 400, field }, body);
        if (problem) problems.push(problem);
      }
      // {} with each required field alone and of the wrong type
      for (const field of route.body!.required ?? []) {
        const wrong = wrongValue(resolve(suite.doc, route.body!.properties![field]));
        if (wrong === null) continue;
        const body = JSON.stringify({ [field]: wrong });
        const problem = await refused(route, body, pathWith(route, ownIds(route)), { status: 400 }, body);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  });

  it('an unknown field on an otherwise valid body → 400 invalid_request naming it', async () => {
    const problems: string[] = [];
    for (const route of bodyRoutes()) {
      for (const extra of ['surprise', '__proto__', 'constructor']) {
        const body = `{${JSON.stringify(validBody(route)!).slice(1, -1)}${Object.keys(validBody(route)!).length ? ',' : ''}"${extra}":{"polluted":1}}`;
        const problem = await refused(route, `unknown ${extra}`, pathWith(route, ownIds(route)), { status: 400, code: 'invalid_request', field: extra }, body);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a 100 kB string in each string field → 400 naming that field', async () => {
    const problems: string[] = [];
    for (const route of bodyRoutes()) {
      const base = validBody(route)!;
      for (const [field, raw] of Object.entries(route.body!.properties ?? {})) {
        const schema = resolve(suite.doc, raw);
        if (schema.type !== 'string') continue;
        const body = JSON.stringify({ ...base, [field]: BIG });
        const problem = await refused(route, `100 kB ${field}`, pathWith(route, ownIds(route)), { status: 400, field }, body);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  });

  it("another business's well-formed id → 404 not_found (routes that need a key or a session)", async () => {
    // control: the same GET routes find the ids of the business they act for
    const controls = suite.routes.filter((r) => r.method === 'get' && idParams(r).length > 0 && r.op['x-auth'] !== 'public' && Object.values(idKinds(r)).every((k) => k! in ownIds(r)));
    expect(controls.length).toBeGreaterThanOrEqual(7);
    for (const route of controls) expect({ route: name(route), status: (await send(route, pathWith(route, ownIds(route)))).status }).toEqual({ route: name(route), status: 200 });
    const problems: string[] = [];
    for (const route of suite.routes.filter((r) => idParams(r).length > 0 && r.op['x-auth'] !== 'public')) {
      const body = route.body ? JSON.stringify(validBody(route)) : undefined;
      const problem = await refused(route, 'foreign id', pathWith(route, foreignIds(route)), { status: 404, code: 'not_found' }, body);
      if (problem) problems.push(problem);
    }
    expect(problems).toEqual([]);
  });

  it('a malformed id → 404 not_found', async () => {
    const problems: string[] = [];
    for (const route of suite.routes.filter((r) => idParams(r).length > 0)) {
      const body = route.body ? JSON.stringify(validBody(route)) : undefined;
      for (const bad of MALFORMED_IDS) {
        const path = route.path.replace(/\{([A-Za-z_]+)\}/g, () => bad);
        const problem = await refused(route, `id ${bad.slice(0, 20)}`, path, { status: 404, code: 'not_found' }, body);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  });

  it('lists: unknown query parameters, bad limits and bad cursors → 400 invalid_request naming them (§8)', async () => {
    const problems: string[] = [];
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const route of suite.routes.filter(isList)) {
      const path = pathWith(route, ownIds(route));
      // the route's required parameters (GET /search's q), so the refusal is of the one changed
      const required = queryParams(route)
        .filter((p) => p.required)
        .map((p) => `${encodeURIComponent(p.name)}=x&`)
        .join('');
      const cases: [string, string][] = [
        ['surprise=1', 'surprise'],
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=-1', 'limit'],
        ['limit=1.5', 'limit'],
        ['limit=1e1', 'limit'],
        ['limit=%201', 'limit'],
        ['limit=1&limit=2', 'limit'],
        ['cursor=!!!', 'cursor'],
        ['cursor=abc', 'cursor'],
        [`cursor=${'A'.repeat(5000)}`, 'cursor'],
        [`cursor=${b64(null)}`, 'cursor'],
        [`cursor=${b64({ v: 1, l: 'payments', f: 'x', c: '2026-01-01T00:00:00.000Z', i: 'pmt_1' })}`, 'cursor'],
        ['cursor=a&cursor=b', 'cursor'],
      ];
      // each filter one character over the length the document states
      for (const param of queryParams(route).filter((p) => typeof (p.schema as SchemaObject | undefined)?.maxLength === 'number')) {
        cases.push([`${param.required ? '!' : ''}${encodeURIComponent(param.name)}=${'y'.repeat((param.schema as SchemaObject).maxLength! + 1)}`, param.name]);
      }
      // each filter with a null character, and given twice
      for (const param of queryParams(route).filter((p) => !['limit', 'cursor'].includes(p.name))) {
        // (a required parameter is given only as the case says)
        const given = param.required ? '!' : '';
        cases.push([`${given}${encodeURIComponent(param.name)}=a%00b`, param.name]);
        if (!param.name.includes('[') && param.name !== 'metadata') cases.push([`${given}${encodeURIComponent(param.name)}=a&${encodeURIComponent(param.name)}=b`, param.name]);
      }
      // a cursor of another list, and (on payments) one of another business's same list
      for (const [list, cursor] of Object.entries(cursors)) if (route.path !== list) cases.push([`cursor=${cursor}`, 'cursor']);
      if (route.path === '/payments') cases.push([`cursor=${foreignPaymentsCursor}`, 'cursor']);
      // the list's own cursor, tampered: its position made something the store cannot read
      const mine = cursors[route.path];
      if (mine) {
        const payload = JSON.parse(Buffer.from(mine, 'base64url').toString('utf8')) as Record<string, unknown>;
        for (const c of ['12', '1/2/3', 'Tue', '+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '2026-02-30T00:00:00.000Z', '0000-01-01T00:00:00.000Z']) cases.push([`cursor=${b64({ ...payload, c })}`, 'cursor']);
        for (const i of [5, null, ['x']]) cases.push([`cursor=${b64({ ...payload, i })}`, 'cursor']);
      }
      for (const [query, field] of cases) {
        const full = query.startsWith('!') ? query.slice(1) : `${required}${query}`;
        const problem = await refused(route, full.slice(0, 60), path, { status: 400, code: 'invalid_request', field }, undefined, `?${full}`);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  });
});
