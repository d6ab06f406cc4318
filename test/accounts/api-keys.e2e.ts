import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { eventually } from '../support/eventually';
import { accountsAppForSuite, Browser, PASSWORD, signUp, steppedUpOwner } from './support';

/**
 * API key management from the dashboard and dashboard business creation over real HTTP (issue
 * 14 item 9, #19 B18; decision 0039): the real app on the embedded store, a cookie jar per
 * browser, the accounts clock moved by the test for the step-up's 15 minutes.
 */
describe('API key management over HTTP', () => {
  const app = accountsAppForSuite();
  const logs = app.logs;
  const secrets: string[] = [];

  /** A signed-up person whose session has stepped up, acting for their first (simulated) business. */
  const owner = () => steppedUpOwner(app);

  /** A request with an API key (no cookie). */
  async function withKey(key: string, method: string, path: string, body?: unknown) {
    const response = await fetch(`${app.api.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  async function createKey(as: Awaited<ReturnType<typeof owner>>['as'], body: unknown) {
    const created = await as.post('/api-keys', body);
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store'); // the secret shown once: no cache keeps it (audit F6)
    secrets.push(created.body.data.secret);
    return created.body.data as { id: string; secret: string; [k: string]: unknown };
  }

  it('creates a secret key shown once, lists it without any secret, and the key works on the API', async () => {
    const { as, businessId } = await owner();
    const key = await createKey(as, { type: 'secret', mode: 'test', name: 'Server' });
    expect(key).toEqual({
      kind: 'api_key',
      id: expect.stringMatching(/^key_/),
      business_id: businessId,
      type: 'secret',
      mode: 'test',
      name: 'Server',
      permissions: null,
      redacted_key: `sk_test_…${key.secret.slice(-4)}`,
      created_at: expect.any(String),
      revoked_at: null,
      last_used_at: null,
      secret: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32}$/),
    });
    const list = await as.get('/api-keys');
    expect(list.status).toBe(200);
    expect(list.headers.get('cache-control')).toBeNull(); // no secret here
    expect(list.body.data[0]).toEqual({ ...key, secret: undefined });
    expect(JSON.stringify(list.body)).not.toContain(key.secret);
    expect(list.body.data).toHaveLength(3); // the business's first secret and publishable keys, and this one
    expect((await withKey(key.secret, 'GET', '/business')).body.data.id).toBe(businessId);
  });

  it('shows when a key was last used, recorded off the request path at most once a minute (decision 0039)', async () => {
    const { as } = await owner();
    const key = await createKey(as, { type: 'secret', mode: 'test', name: 'Used' });
    const listed = async () => (await as.get('/api-keys')).body.data.find((k: { id: string }) => k.id === key.id) as { last_used_at: string | null; name: string };
    expect((await listed()).last_used_at).toBeNull();
    const before = Date.now();
    expect((await withKey(key.secret, 'GET', '/business')).status).toBe(200);
    const used = await eventually(listed, (k) => k.last_used_at !== null, { what: 'last_used_at recorded' });
    expect(Date.parse(used.last_used_at!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(used.last_used_at!)).toBeLessThanOrEqual(Date.now());
    // used again within the minute: nothing written, the time stays
    for (let i = 0; i < 3; i++) expect((await withKey(key.secret, 'GET', '/business')).status).toBe(200);
    expect((await listed()).last_used_at).toBe(used.last_used_at);
    // the write answers show it too; another key of the business was never used
    const renamed = await as.patch(`/api-keys/${key.id}`, { name: 'Renamed' });
    expect(renamed.body.data).toMatchObject({ name: 'Renamed', last_used_at: used.last_used_at });
    const others = (await as.get('/api-keys')).body.data.filter((k: { id: string }) => k.id !== key.id);
    expect(others.map((k: { last_used_at: string | null }) => k.last_used_at)).toEqual([null, null]);
  });

  it('pages the list newest first with a cursor', async () => {
    const { as } = await owner();
    const made = [];
    for (const name of ['a', 'b', 'c']) made.push((await createKey(as, { type: 'secret', mode: 'test', name })).id);
    const first = await as.get('/api-keys?limit=2');
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    expect(first.body.data.map((k: { id: string }) => k.id)).toEqual([made[2], made[1]]);
    const rest = await as.get(`/api-keys?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(rest.body.data.map((k: { id: string }) => k.id)).toEqual([made[0], expect.any(String)]);
    const last = await as.get(`/api-keys?limit=2&cursor=${encodeURIComponent(rest.body.next_cursor)}`);
    expect(last.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(new Set([...first.body.data, ...rest.body.data, ...last.body.data].map((k: { id: string }) => k.id)).size).toBe(5);
    expect((await as.get('/api-keys?limit=0')).body.error).toMatchObject({ code: 'invalid_request', field: 'limit' });
    expect((await as.get('/api-keys?cursor=nonsense')).body.error.code).toBe('invalid_request');
    expect((await as.get('/api-keys?type=secret')).body.error).toMatchObject({ code: 'invalid_request', field: 'type' });
  });

  it('a restricted key created here gets permission_denied where it lacks access and works where it has it', async () => {
    const { as } = await owner();
    const key = await createKey(as, { type: 'restricted', mode: 'test', name: 'Reader', permissions: { customers: 'read', business: 'read' } });
    expect(key).toMatchObject({ type: 'restricted', permissions: { customers: 'read', business: 'read' }, secret: expect.stringMatching(/^rk_test_/) });
    expect((await withKey(key.secret, 'GET', '/customers')).status).toBe(200);
    expect((await withKey(key.secret, 'GET', '/business')).status).toBe(200);
    const write = await withKey(key.secret, 'POST', '/customers', { email: 'x@example.com' });
    expect(write).toMatchObject({ status: 403, body: { error: { code: 'permission_denied' } } });
    expect((await withKey(key.secret, 'GET', '/payments')).body.error.code).toBe('permission_denied');
    // the HTTP body takes grants as an object (the CLI's written form is not an API shape); grants changed through PATCH hold at once
    expect((await as.post('/api-keys', { type: 'restricted', mode: 'test', permissions: 'payments:write' })).body.error).toMatchObject({ code: 'invalid_request', field: 'permissions' });
    expect((await as.post('/api-keys', { type: 'restricted', mode: 'test', permissions: { payments: 'admin' } })).body.error).toMatchObject({ code: 'invalid_request', field: 'permissions' });
    const changed = await as.patch(`/api-keys/${key.id}`, { permissions: { customers: 'write' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.permissions).toEqual({ customers: 'write' });
    expect((await withKey(key.secret, 'POST', '/customers', { email: `w${Date.now()}@example.com` })).status).toBe(201);
    expect((await withKey(key.secret, 'GET', '/business')).body.error.code).toBe('permission_denied');
  });

  it('changes a name; refuses a publishable key (409 publishable_key), grants on a secret key, bad grants', async () => {
    const { as } = await owner();
    const key = await createKey(as, { type: 'secret', mode: 'test' });
    const renamed = await as.patch(`/api-keys/${key.id}`, { name: '  Billing  ' });
    expect(renamed).toMatchObject({ status: 200, body: { data: { id: key.id, name: 'Billing' } } });
    expect((await as.patch(`/api-keys/${key.id}`, { name: null })).body.data.name).toBeNull();
    expect((await as.get('/api-keys')).body.data.find((k: { id: string }) => k.id === key.id).name).toBeNull();
    const publishable = (await as.get('/api-keys')).body.data.find((k: { type: string }) => k.type === 'publishable');
    const refused = await as.patch(`/api-keys/${publishable.id}`, { name: 'x' });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'publishable_key', message: expect.stringMatching(/no name or permissions to change/) } } });
    expect((await as.patch(`/api-keys/${key.id}`, { permissions: { payments: 'read' } })).body.error).toMatchObject({ code: 'invalid_request', field: 'permissions' });
    expect((await as.patch(`/api-keys/${key.id}`, { permissions: { bogus: 'read' } })).body.error).toMatchObject({ code: 'invalid_request', field: 'permissions' });
    expect((await as.patch(`/api-keys/${key.id}`, { name: 'x'.repeat(101) })).body.error).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect((await as.post('/api-keys', { type: 'publishable', mode: 'test', name: 'x' })).body.error).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect((await as.post('/api-keys', { type: 'secret', mode: 'live' })).body.error).toMatchObject({ code: 'invalid_request', field: 'mode' });
  });

  it('rolls a key: the old secret is refused (401 invalid_api_key), the new one works; same id, kind and grants', async () => {
    const { as, businessId } = await owner();
    const key = await createKey(as, { type: 'restricted', mode: 'test', permissions: { business: 'read' } });
    expect((await withKey(key.secret, 'GET', '/business')).status).toBe(200);
    const rolled = await as.post(`/api-keys/${key.id}/roll`);
    expect(rolled.status).toBe(200);
    expect(rolled.headers.get('cache-control')).toBe('no-store');
    secrets.push(rolled.body.data.secret);
    expect(rolled.body.data).toMatchObject({ id: key.id, type: 'restricted', permissions: { business: 'read' }, secret: expect.stringMatching(/^rk_test_/) });
    expect(rolled.body.data.secret).not.toBe(key.secret);
    expect(rolled.body.data.redacted_key).toBe(`rk_test_…${rolled.body.data.secret.slice(-4)}`);
    expect(await withKey(key.secret, 'GET', '/business')).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    expect((await withKey(rolled.body.data.secret, 'GET', '/business')).body.data.id).toBe(businessId);
  });

  it('revokes a key: refused on the API at once; a revoked key cannot be changed, rolled or revoked again (409 api_key_revoked)', async () => {
    const { as } = await owner();
    const key = await createKey(as, { type: 'secret', mode: 'test' });
    const revoked = await as.post(`/api-keys/${key.id}/revoke`);
    expect(revoked).toMatchObject({ status: 200, body: { data: { id: key.id, revoked_at: expect.any(String) } } });
    expect(await withKey(key.secret, 'GET', '/business')).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    for (const attempt of [as.patch(`/api-keys/${key.id}`, { name: 'x' }), as.post(`/api-keys/${key.id}/roll`), as.post(`/api-keys/${key.id}/revoke`)]) {
      expect(await attempt).toMatchObject({ status: 409, body: { error: { code: 'api_key_revoked' } } });
    }
    expect((await as.get('/api-keys')).body.data.find((k: { id: string }) => k.id === key.id).revoked_at).toEqual(revoked.body.data.revoked_at);
  });

  it('creating, rolling and revoking need a step-up within 15 minutes (403 step_up_required); listing and changing do not', async () => {
    const b = new Browser(app.api);
    const person = await signUp(app, b); // a sign-up's session is no proof
    const h = { 'service-business': person.businessId };
    expect((await b.post('/api-keys', { type: 'secret', mode: 'test' }, h)).body.error.code).toBe('step_up_required');
    const keys = (await b.get('/api-keys', h)).body.data;
    const secretKey = keys.find((k: { type: string }) => k.type === 'secret');
    expect((await b.post(`/api-keys/${secretKey.id}/roll`, undefined, h)).body.error.code).toBe('step_up_required');
    expect((await b.post(`/api-keys/${secretKey.id}/revoke`, undefined, h)).body.error.code).toBe('step_up_required');
    expect((await b.call('PATCH', `/api-keys/${secretKey.id}`, { name: 'Main' }, h)).status).toBe(200);
    expect((await b.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const created = await b.post('/api-keys', { type: 'secret', mode: 'test' }, h);
    expect(created.status).toBe(201);
    secrets.push(created.body.data.secret);
    app.clock.advance(16 * 60 * 1000);
    expect((await b.post(`/api-keys/${created.body.data.id}/revoke`, undefined, h)).status).toBe(403);
  });

  it('giving a key more access needs a step-up within 15 minutes (403 step_up_required, nothing changed); renaming and narrowing do not (audit F4)', async () => {
    const { b, as } = await owner();
    const key = await createKey(as, { type: 'restricted', mode: 'test', name: 'Reader', permissions: { payments: 'read', customers: 'write' } });
    const listed = async () => (await as.get('/api-keys')).body.data.find((k: { id: string }) => k.id === key.id) as { name: string | null; permissions: Record<string, string> };
    app.clock.advance(16 * 60 * 1000); // the step-up has ended
    const widenings = [
      { permissions: { payments: 'write', customers: 'write' } }, // read raised to write
      { permissions: { payments: 'read', customers: 'write', business: 'read' } }, // a resource added
      { name: 'Everything', permissions: { payments: 'write', checkouts: 'write', customers: 'write', links: 'write', webhooks: 'write', events: 'read', wallet: 'write', business: 'write' } }, // the audit's repro, with a rename
      { permissions: { business: 'write' } }, // one grant dropped, another added: still more access
    ];
    for (const body of widenings) {
      expect(await as.patch(`/api-keys/${key.id}`, body)).toMatchObject({ status: 403, body: { error: { code: 'step_up_required', message: expect.stringContaining('POST /sessions/current/step-up') } } });
    }
    expect(await listed()).toMatchObject({ name: 'Reader', permissions: { payments: 'read', customers: 'write' } });
    expect((await withKey(key.secret, 'GET', '/business')).body.error.code).toBe('permission_denied');
    // narrowing and renaming stay free
    const narrowed = await as.patch(`/api-keys/${key.id}`, { permissions: { payments: 'read', customers: 'read' } });
    expect(narrowed).toMatchObject({ status: 200, body: { data: { permissions: { payments: 'read', customers: 'read' } } } });
    expect((await as.patch(`/api-keys/${key.id}`, { permissions: { customers: 'read' } })).status).toBe(200);
    expect(await as.patch(`/api-keys/${key.id}`, { name: 'Still a reader' })).toMatchObject({ status: 200, body: { data: { name: 'Still a reader', permissions: { customers: 'read' } } } });
    // a fresh step-up: the same widening goes through and holds at once
    expect((await b.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const widened = await as.patch(`/api-keys/${key.id}`, { permissions: { customers: 'read', business: 'write' } });
    expect(widened).toMatchObject({ status: 200, body: { data: { permissions: { customers: 'read', business: 'write' } } } });
    expect((await withKey(key.secret, 'GET', '/business')).status).toBe(200);
  });

  it('answers API keys 403 session_required on every key route and on POST /businesses', async () => {
    const { as } = await owner();
    const key = await createKey(as, { type: 'secret', mode: 'test' });
    for (const [method, path, body] of [
      ['GET', '/api-keys', undefined],
      ['POST', '/api-keys', { type: 'secret', mode: 'test' }],
      ['PATCH', `/api-keys/${key.id}`, { name: 'x' }],
      ['POST', `/api-keys/${key.id}/roll`, undefined],
      ['POST', `/api-keys/${key.id}/revoke`, undefined],
      ['POST', '/businesses', { name: 'Other' }],
    ] as const) {
      expect([method, path, await withKey(key.secret, method, path, body)]).toMatchObject([method, path, { status: 403, body: { error: { code: 'session_required' } } }]);
    }
    expect((await withKey(key.secret, 'GET', '/business')).status).toBe(200); // still valid: nothing was done with it
    const anonymous = await fetch(`${app.api.base}/api-keys`);
    expect(anonymous.status).toBe(401);
  });

  it('keeps businesses apart: another business in Service-Business is 403 business_forbidden, another business’s key id 404', async () => {
    const ann = await owner();
    const bob = await owner();
    const annKey = await createKey(ann.as, { type: 'secret', mode: 'test' });
    expect((await bob.b.get('/api-keys', { 'service-business': ann.businessId })).body.error.code).toBe('business_forbidden');
    expect((await bob.b.post('/api-keys', { type: 'secret', mode: 'test' }, { 'service-business': ann.businessId })).body.error.code).toBe('business_forbidden');
    expect((await bob.b.get('/api-keys')).body.error.code).toBe('business_required');
    for (const attempt of [bob.as.patch(`/api-keys/${annKey.id}`, { name: 'x' }), bob.as.post(`/api-keys/${annKey.id}/roll`), bob.as.post(`/api-keys/${annKey.id}/revoke`)]) {
      expect(await attempt).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    }
    expect((await bob.as.get('/api-keys')).body.data.some((k: { id: string }) => k.id === annKey.id)).toBe(false);
    expect((await withKey(annKey.secret, 'GET', '/business')).status).toBe(200); // untouched
    expect((await bob.as.patch('/api-keys/key_doesnotexist000000000000', { name: 'x' })).status).toBe(404);
  });

  it('ignores Idempotency-Key on create: the secret is never kept for a replay', async () => {
    const { as } = await owner();
    const one = await as.post('/api-keys', { type: 'secret', mode: 'test' }, { 'idempotency-key': 'same-key-1' });
    const two = await as.post('/api-keys', { type: 'secret', mode: 'test' }, { 'idempotency-key': 'same-key-1' });
    secrets.push(one.body.data.secret, two.body.data.secret);
    expect(one.status).toBe(201);
    expect(two.status).toBe(201);
    expect(two.body.data.id).not.toBe(one.body.data.id);
  });

  it('POST /businesses: a signed-in person creates a business, becomes its owner and can name it in Service-Business', async () => {
    const { b } = await owner();
    const created = await b.post('/businesses', { name: '  Second Shop ', simulated: true });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ kind: 'business', id: expect.stringMatching(/^biz_/), name: 'Second Shop', simulated: true, status: 'active' });
    const id = created.body.data.id as string;
    const me = await b.get('/me');
    expect(me.body.data.businesses).toEqual(expect.arrayContaining([{ id, name: 'Second Shop', role: 'owner' }]));
    expect(me.body.data.businesses).toHaveLength(2);
    expect((await b.get('/business', { 'service-business': id })).body.data.id).toBe(id);
    const keys = await b.get('/api-keys', { 'service-business': id });
    expect(keys.body.data.map((k: { type: string }) => k.type).sort()).toEqual(['publishable', 'secret']);
    const live = await b.post('/businesses', { name: 'Live Shop' });
    expect(live.body.data.simulated).toBe(false);
    expect((await b.post('/businesses', {})).body.error).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect((await b.post('/businesses', { name: 'x', simulated: 'yes' })).body.error).toMatchObject({ code: 'invalid_request', field: 'simulated' });
    expect((await fetch(`${app.api.base}/businesses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' })).status).toBe(401);
    const crossSite = new Browser(app.api, 'https://evil.example');
    crossSite.jar.set('session', b.jar.get('session')!);
    expect((await crossSite.post('/businesses', { name: 'x' })).body.error.code).toBe('cross_site_request');
  });

  it('fuzz: the new POST and PATCH routes answer no 5xx to odd bodies', async () => {
    const { as, b } = await owner();
    const key = await createKey(as, { type: 'restricted', mode: 'test', permissions: { links: 'read' } });
    const bodies: unknown[] = [
      {}, { type: 'secret' }, { mode: 'test' }, { type: 'restricted', mode: 'test' }, { type: 'restricted', mode: 'test', permissions: {} },
      { type: 'restricted', mode: 'test', permissions: [] }, { type: 'restricted', mode: 'test', permissions: 'payments' }, { type: 'restricted', mode: 'test', permissions: ':,:' },
      { type: 'restricted', mode: 'test', permissions: { __proto__: { payments: 'write' } } }, { type: 'restricted', mode: 'test', permissions: { payments: 'admin' } },
      { type: 'restricted', mode: 'test', permissions: { constructor: 'read' } }, { type: 42, mode: null }, { type: 'secret', mode: 'test', name: 42 },
      { type: 'secret', mode: 'test', name: '\u0000\uffff' }, { type: 'secret', mode: 'test', name: 'x'.repeat(10_000) }, { type: 'secret', mode: 'test', extra: true },
      { name: null, permissions: null }, { permissions: 'links:write,links:read' }, { permissions: { links: ['write'] } }, { name: { a: 1 } },
    ];
    const raw = ['null', '[]', '"x"', '1', 'true', '{', '{"name":'];
    const routes: [string, string][] = [
      ['POST', '/api-keys'],
      ['PATCH', `/api-keys/${key.id}`],
      ['PATCH', '/api-keys/__proto__'],
      ['PATCH', `/api-keys/${'k'.repeat(500)}`],
      ['POST', '/businesses'],
    ];
    for (const [method, path] of routes) {
      const headers: Record<string, string> = path === '/businesses' ? {} : { 'service-business': key.business_id as string };
      for (const body of bodies) {
        const answer = await b.call(method, path, body, headers);
        if (answer.status === 201 && answer.body.data.secret) secrets.push(answer.body.data.secret);
        expect([method, path, body, answer.status < 500]).toEqual([method, path, body, true]);
      }
      for (const text of raw) {
        const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
        const response = await fetch(`${app.api.base}${path}`, { method, headers: { cookie, origin: new URL(app.api.base).origin, 'content-type': 'application/json', ...headers }, body: text });
        expect([method, path, text, response.status]).toEqual([method, path, text, expect.any(Number)]);
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
      }
    }
    for (const suffix of ['roll', 'revoke']) {
      const answer = await b.post(`/api-keys/${'%00'}/${suffix}`, undefined, { 'service-business': key.business_id as string });
      expect(answer.status).toBeLessThan(500);
    }
  });

  it('never writes a secret to the logs or to any event (the event log dumped)', async () => {
    expect(secrets.length).toBeGreaterThan(10);
    const events = await app.api.app.get<EventStore>(EVENT_STORE).readAll();
    expect(events.some((e) => e.type === 'ApiKeyRolled')).toBe(true);
    expect(events.some((e) => e.type === 'ApiKeyUpdated')).toBe(true);
    const dump = JSON.stringify(events.map((e) => ({ stream: e.stream, type: e.type, data: e.data, metadata: e.metadata })));
    const text = logs.join('');
    expect(text.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(dump.includes(secret)).toBe(false);
      expect(dump.includes(secret.slice(8))).toBe(false);
      expect(text.includes(secret)).toBe(false);
    }
  });
});
