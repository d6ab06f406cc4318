import { BusinessService, operatorActor } from '@lib/businesses';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { Browser, PASSWORD, accountsAppForSuite, challenge, newEmail, signUp, steppedUpOwner } from '../accounts/support';
import { Answer, Client } from '../support/client';
import { eventually } from '../support/eventually';
import { linkIn } from '../support/smtp';

/**
 * An outside-in audit of the business side (spec §2–§8; decisions 0016, 0024, 0035, 0039, 0041):
 * PATCH /businesses/{id}, the alert e-mail confirmation, API key management, referrals, GET and
 * DELETE /wallet, wallet creation and the wallet change cancels, probed as an independent client
 * over real HTTP (the real app on the embedded store, session cookies, a real SMTP server): exact
 * fields, codes and envelopes, malformed bodies (400, nothing changed, never 5xx), one business
 * never reaching another's ids, restricted keys, secrets shown once, a suspended business.
 */
describe('business side audit over HTTP', () => {
  const app = accountsAppForSuite();

  type Owner = Awaited<ReturnType<typeof steppedUpOwner>>;
  const owner = (): Promise<Owner> => steppedUpOwner(app);

  /** A stepped-up owner of a live business (no wallet: a live business gets none at sign-up). */
  const liveOwner = (): Promise<Owner> => steppedUpOwner(app, { name: 'Live Corner', simulated: false });

  /** A new key of the owner's business made through the dashboard, as an API client. */
  async function keyOf(o: Owner, body: Record<string, unknown> = { type: 'secret', mode: 'test' }): Promise<Client & { id: string }> {
    const created = await o.as.post('/api-keys', body);
    expect(created.status).toBe(201);
    return Object.assign(new Client(app.api, created.body.data.secret), { id: created.body.data.id as string });
  }

  /** The error envelope of §7, exactly: code, a message, field (or null), request_id the Service-Request-Id header. */
  function expectError(answer: Answer | { status: number; body: any; headers: Headers }, status: number, code: string, field?: string | null) {
    expect([answer.status, answer.body?.error?.code]).toEqual([status, code]);
    expect(Object.keys(answer.body).sort()).toEqual(['error']);
    expect(answer.body.error).toEqual({
      code,
      message: expect.any(String),
      field: field === undefined ? answer.body.error.field : field,
      request_id: answer.headers.get('service-request-id'),
    });
    expect(answer.body.error.field === null || typeof answer.body.error.field === 'string').toBe(true);
    expect(answer.body.error.request_id).toMatch(/^req_/);
  }

  /** A raw request with a session browser's cookies and a text body. */
  async function raw(b: Browser, method: string, path: string, text: string | undefined, headers: Record<string, string>) {
    const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(`${app.api.base}${path}`, { method, headers: { cookie, origin: b.origin ?? '', 'x-forwarded-for': b.ip, 'content-type': 'application/json', ...headers }, body: text });
    const body = await response.text();
    return { status: response.status, body: body ? JSON.parse(body) : null, headers: response.headers };
  }

  const BUSINESS_FIELDS = ['kind', 'id', 'name', 'website', 'support_email', 'alert_email', 'pending_alert_email', 'status', 'suspended_at', 'email_alerts', 'product_updates', 'created_at', 'updated_at'];

  describe('PATCH /businesses/{id}', () => {
    it('answers the business object with the spec’s fields and types', async () => {
      const o = await owner();
      const answer = await o.as.patch(`/businesses/${o.businessId}`, { product_updates: true });
      expect(answer.status).toBe(200);
      const business = answer.body.data;
      expect(Object.keys(business)).toEqual(expect.arrayContaining(BUSINESS_FIELDS));
      expect(business).toMatchObject({
        kind: 'business',
        id: o.businessId,
        status: 'active',
        suspended_at: null,
        alert_email: null,
        pending_alert_email: null,
        email_alerts: true,
        product_updates: true,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect((await o.as.get('/business')).body.data).toEqual(business);
    });

    it('refuses malformed bodies with the 400 envelope and changes nothing', async () => {
      const o = await owner();
      const before = (await o.as.get('/business')).body.data;
      const path = `/businesses/${o.businessId}`;
      const cases: [unknown, string | null][] = [
        [{}, null],
        [{ name: null }, 'name'],
        [{ name: '' }, 'name'],
        [{ name: '   ' }, 'name'],
        [{ name: 42 }, 'name'],
        [{ name: ['Shop'] }, 'name'],
        [{ name: { a: 1 } }, 'name'],
        [{ name: 'x'.repeat(201) }, 'name'],
        [{ name: 'x'.repeat(100_000) }, 'name'],
        [{ name: 'Null\u0000Shop' }, 'name'],
        [{ website: 'ftp://shop.example' }, 'website'],
        [{ website: 'not a url' }, 'website'],
        [{ website: 42 }, 'website'],
        [{ website: `https://${'a'.repeat(5000)}.example` }, 'website'],
        [{ support_email: 'nope' }, 'support_email'],
        [{ support_email: 7 }, 'support_email'],
        [{ email_alerts: 'true' }, 'email_alerts'],
        [{ email_alerts: null }, 'email_alerts'],
        [{ product_updates: 1 }, 'product_updates'],
        [{ product_updates: null }, 'product_updates'],
        [{ alert_email: null }, 'alert_email'],
        [{ alert_email: 'nope' }, 'alert_email'],
        [{ alert_email: ['a@b.example'] }, 'alert_email'],
        [{ alert_email: `${'a'.repeat(400)}@b.example` }, 'alert_email'],
        [{ referral_code: null }, 'referral_code'],
        [{ referral_code: 'a' }, 'referral_code'],
        [{ referral_code: 'bad code!' }, 'referral_code'],
        [{ referral_code: 12345 }, 'referral_code'],
        [{ status: 'suspended' }, 'status'],
        [{ suspended_at: null }, 'suspended_at'],
        [{ id: 'biz_other' }, 'id'],
        [{ pending_alert_email: 'a@b.example' }, 'pending_alert_email'],
        [{ product_updates: true, unknown: 1 }, 'unknown'],
        [{ simulated: false }, 'simulated'],
      ];
      for (const [body, field] of cases) {
        const answer = await o.as.patch(path, body);
        expect([JSON.stringify(body).slice(0, 80), answer.status]).toEqual([JSON.stringify(body).slice(0, 80), 400]);
        expectError(answer, 400, 'invalid_request', field === null ? undefined : field);
      }
      for (const text of ['null', '[]', '[{"name":"x"}]', '"x"', '1', 'true', '{', '{"name":"\\ud800"}']) {
        const answer = await raw(o.b, 'PATCH', path, text, { 'service-business': o.businessId });
        expect([text, answer.status]).toEqual([text, 400]);
        expect(['invalid_request', 'invalid_json']).toContain(answer.body.error.code);
      }
      const huge = await raw(o.b, 'PATCH', path, JSON.stringify({ name: 'x'.repeat(1_100_000) }), { 'service-business': o.businessId });
      expectError(huge, 413, 'payload_too_large');
      const notJson = await fetch(`${app.api.base}${path}`, { method: 'PATCH', headers: { cookie: [...o.b.jar].map(([k, v]) => `${k}=${v}`).join('; '), origin: o.b.origin!, 'service-business': o.businessId, 'content-type': 'text/plain' }, body: 'name=x' });
      expect(notJson.status).toBe(415);
      expect((await o.as.get('/business')).body.data).toEqual(before);
    });

    it('another business’s id, an unknown or malformed id is 404 not_found, for a session and a secret key; nothing changes', async () => {
      const ann = await owner();
      const bob = await owner();
      const bobKey = await keyOf(bob);
      const annBefore = (await ann.as.get('/business')).body.data;
      for (const id of [ann.businessId, 'biz_doesnotexist0000000000', 'nonsense', ann.businessId.toUpperCase(), '%00', 'x'.repeat(500)]) {
        expectError(await bob.as.patch(`/businesses/${id}`, { name: 'Taken over' }), 404, 'not_found');
        expectError(await bobKey.patch(`/businesses/${id}`, { name: 'Taken over' }), 404, 'not_found');
        expectError(await bob.as.post(`/businesses/${id}/alert-email/confirm`, { code: '123456' }), 404, 'not_found');
        expectError(await bob.as.get(`/businesses/${id}/setup`), 404, 'not_found');
        expectError(await bobKey.get(`/businesses/${id}/setup`), 404, 'not_found');
      }
      // a person acting for two businesses still reaches only the one in Service-Business through the path
      expect((await ann.as.get('/business')).body.data).toEqual(annBefore);
      // a secret key naming another business in the header: 403 business_forbidden
      const named = await bobKey.call('PATCH', `/businesses/${bob.businessId}`, { product_updates: true }, { 'service-business': ann.businessId });
      expectError(named, 403, 'business_forbidden');
      expect((await bob.as.get('/business')).body.data.product_updates).toBe(false);
    });

    it('needs credentials (401 with WWW-Authenticate: Bearer); restricted keys need business:write', async () => {
      const o = await owner();
      const path = `/businesses/${o.businessId}`;
      const anonymous = await new Client(app.api, null).patch(path, { product_updates: true });
      expectError(anonymous, 401, 'unauthenticated');
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const bad = await new Client(app.api, 'sk_test_nonsense').patch(path, { product_updates: true });
      expectError(bad, 401, 'invalid_api_key');
      const reader = await keyOf(o, { type: 'restricted', mode: 'test', permissions: { business: 'read' } });
      expectError(await reader.patch(path, { product_updates: true }), 403, 'permission_denied');
      const other = await keyOf(o, { type: 'restricted', mode: 'test', permissions: { payments: 'write' } });
      expectError(await other.patch(path, { product_updates: true }), 403, 'permission_denied');
      expectError(await other.get('/business'), 403, 'permission_denied');
      const writer = await keyOf(o, { type: 'restricted', mode: 'test', permissions: { business: 'write' } });
      expect((await writer.patch(path, { product_updates: true })).body.data.product_updates).toBe(true);
      expect((await writer.get('/business')).status).toBe(200);
      const publishable = (await o.as.get('/api-keys')).body.data.find((k: { type: string }) => k.type === 'publishable');
      expect(publishable).toBeDefined();
    });

    it('a test key of a live business cannot change what customers see (403 test_mode_unavailable) but may change the alert settings', async () => {
      const live = await app.api.app.get(BusinessService).createBusiness({ name: 'Live Audit', simulated: false });
      const testKey = await app.api.app.get(BusinessService).createKey({ businessId: live.business.id, kind: 'secret', mode: 'test' });
      const client = new Client(app.api, testKey.secret);
      const path = `/businesses/${live.business.id}`;
      for (const body of [{ name: 'Renamed' }, { website: 'https://x.example' }, { support_email: 'a@x.example' }, { website: null }, { name: 'Renamed', product_updates: true }]) {
        expectError(await client.patch(path, body), 403, 'test_mode_unavailable');
      }
      expect((await client.patch(path, { product_updates: true })).body.data.product_updates).toBe(true);
      expect((await new Client(app.api, live.secret_key).patch(path, { name: 'Renamed' })).body.data.name).toBe('Renamed');
    });
  });

  describe('POST /businesses/{id}/alert-email/confirm', () => {
    it('is for dashboard sessions only, answers the spec’s codes, and confirms with spaces ignored', async () => {
      const o = await owner();
      const key = await keyOf(o);
      const path = `/businesses/${o.businessId}/alert-email/confirm`;
      expectError(await key.post(path, { code: '123456' }), 403, 'session_required');
      expectError(await o.as.post(path, { code: '123456' }), 409, 'verification_expired');
      const address = `alerts.${Date.now()}@audit.example`;
      const pending = await o.as.patch(`/businesses/${o.businessId}`, { alert_email: address });
      expect(pending.body.data).toMatchObject({ alert_email: null, pending_alert_email: address });
      const code = await app.smtp.code(address);
      for (const body of [{}, { code: null }, { code: 123456 }, { code: ['123456'] }, { code: '123456', extra: 1 }, { code: 'x'.repeat(100_000) }]) {
        const answer = await o.as.post(path, body);
        expect([JSON.stringify(body).slice(0, 40), answer.status]).toEqual([JSON.stringify(body).slice(0, 40), 400]);
        expect(['invalid_request', 'invalid_code']).toContain(answer.body.error.code);
      }
      for (const text of ['null', '[]', '"123456"']) {
        const answer = await raw(o.b, 'POST', path, text, { 'service-business': o.businessId });
        expect([text, answer.status]).toEqual([text, 400]);
      }
      expectError(await o.as.post(path, { code: '12a456' }), 400, 'invalid_code', 'code');
      // every malformed string is invalid_code, also one over the 64 characters of the document's maxLength (spec §7; audit F5);
      // a value that is not a string is invalid_request
      expectError(await o.as.post(path, { code: '1'.repeat(65) }), 400, 'invalid_code', 'code');
      expectError(await o.as.post(path, { code: 'x'.repeat(100_000) }), 400, 'invalid_code', 'code');
      expectError(await o.as.post(path, { code: 123456 }), 400, 'invalid_request', 'code');
      const wrong = code === '000000' ? '000001' : '000000';
      expectError(await o.as.post(path, { code: wrong }), 400, 'invalid_code', 'code');
      const confirmed = await o.as.post(path, { code: ` ${code.slice(0, 3)} ${code.slice(3)} ` });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.data).toMatchObject({ kind: 'business', id: o.businessId, alert_email: address, pending_alert_email: null });
      expectError(await o.as.post(path, { code }), 409, 'verification_expired');
    });
  });

  describe('API keys', () => {
    it('refuse malformed bodies (400, field named), and changes nothing', async () => {
      const o = await owner();
      const key = await keyOf(o, { type: 'restricted', mode: 'test', name: 'Keep', permissions: { links: 'read' } });
      const before = (await o.as.get('/api-keys')).body.data;
      const creates: [unknown, string][] = [
        [{ type: 'secret', mode: 'test', name: 'x'.repeat(100_000) }, 'name'],
        [{ type: 'secret', mode: 'test', name: 'a\u0000b' }, 'name'],
        [{ type: 'secret', mode: 'test', unknown: 1 }, 'unknown'],
        [{ type: 'secret', mode: 'test', permissions: { links: 'read' } }, 'permissions'],
        [{ type: 'publishable', mode: 'test', permissions: { links: 'read' } }, 'permissions'],
        [{ type: 'restricted', mode: 'test' }, 'permissions'],
        [{ type: 'restricted', mode: 'test', permissions: {} }, 'permissions'],
        [{ type: 'restricted', mode: 'test', permissions: null }, 'permissions'],
        [{ type: 'restricted', mode: 'test', permissions: { links: 'read', bogus: 'read' } }, 'permissions'],
        [{ type: 'root', mode: 'test' }, 'type'],
        [{ type: 'secret', mode: 'staging' }, 'mode'],
        [{ type: null, mode: 'test' }, 'type'],
        [{ mode: 'test' }, 'type'],
        [{ type: 'secret' }, 'mode'],
      ];
      for (const [body, field] of creates) {
        const answer = await o.as.post('/api-keys', body);
        expect([JSON.stringify(body).slice(0, 60), answer.status]).toEqual([JSON.stringify(body).slice(0, 60), 400]);
        expectError(answer, 400, 'invalid_request', field);
      }
      const updates: [unknown, string | null][] = [
        [{ name: 'x'.repeat(100_000) }, 'name'],
        [{ name: 42 }, 'name'],
        [{ name: 'a\u0000b' }, 'name'],
        [{ permissions: null }, 'permissions'],
        [{ permissions: [] }, 'permissions'],
        [{ permissions: { links: 'admin' } }, 'permissions'],
        [{ type: 'secret' }, 'type'],
        [{ unknown: true }, 'unknown'],
      ];
      for (const [body, field] of updates) {
        const answer = await o.as.patch(`/api-keys/${key.id}`, body);
        expect([JSON.stringify(body).slice(0, 60), answer.status]).toEqual([JSON.stringify(body).slice(0, 60), 400]);
        expectError(answer, 400, 'invalid_request', field ?? undefined);
      }
      for (const text of ['null', '[]', '"x"', '{']) {
        for (const [method, path] of [['POST', '/api-keys'], ['PATCH', `/api-keys/${key.id}`]]) {
          const answer = await raw(o.b, method, path, text, { 'service-business': o.businessId });
          expect([method, text, answer.status]).toEqual([method, text, 400]);
        }
      }
      expect((await o.as.get('/api-keys')).body.data).toEqual(before);
      expect((await key.get('/links')).status).toBe(200);
    });

    it('show a secret once: never in the list, never in a later answer; list queries validated', async () => {
      const o = await owner();
      const made = await o.as.post('/api-keys', { type: 'secret', mode: 'test', name: 'Once' });
      const secret = made.body.data.secret as string;
      const rolled = await o.as.post(`/api-keys/${made.body.data.id}/roll`);
      const rolledSecret = rolled.body.data.secret as string;
      expect(rolledSecret).not.toBe(secret);
      const renamed = await o.as.patch(`/api-keys/${made.body.data.id}`, { name: 'Twice' });
      const revoked = await o.as.post(`/api-keys/${made.body.data.id}/revoke`);
      for (const answer of [renamed, revoked, await o.as.get('/api-keys'), await o.as.get('/api-keys?limit=100')]) {
        const text = JSON.stringify(answer.body);
        expect(text.includes(secret)).toBe(false);
        expect(text.includes(rolledSecret)).toBe(false);
        expect(text.includes(rolledSecret.slice(8, -4))).toBe(false);
        expect(text).not.toMatch(/"secret":/);
      }
      for (const query of ['limit=101', 'limit=-1', 'limit=abc', 'limit=1.5', 'cursor=x', 'unknown=1']) {
        const answer = await o.as.get(`/api-keys?${query}`);
        expect([query, answer.status]).toEqual([query, 400]);
        expectError(answer, 400, 'invalid_request');
      }
    });

    it('a key of one business never reaches another’s keys (404), and a session’s Service-Business must be one of its own', async () => {
      const ann = await owner();
      const bob = await owner();
      const annKeys = (await ann.as.get('/api-keys')).body.data as { id: string }[];
      for (const k of annKeys) {
        expectError(await bob.as.patch(`/api-keys/${k.id}`, { name: 'x' }), 404, 'not_found');
        expectError(await bob.as.post(`/api-keys/${k.id}/roll`), 404, 'not_found');
        expectError(await bob.as.post(`/api-keys/${k.id}/revoke`), 404, 'not_found');
      }
      expect((await ann.as.get('/api-keys')).body.data).toEqual(annKeys);
    });
  });

  describe('referrals', () => {
    it('GET /public/referrals/{code}: the referral, folded case; unknown 404; a suspended referrer 404', async () => {
      const live = await liveOwner();
      const code = `audit-${Date.now().toString(36)}`;
      const changed = await live.as.patch(`/businesses/${live.businessId}`, { referral_code: `  ${code.toUpperCase()} ` });
      expect(changed.status).toBe(200);
      expect(changed.body.data.referral_code).toBe(code);
      const anonymous = new Client(app.api, null);
      const found = await anonymous.get(`/public/referrals/${code}`);
      expect(found.status).toBe(200);
      expect(found.body.data).toEqual({ kind: 'referral', code, referrer: { name: 'Live Corner' }, fee_share_bps: expect.any(Number) });
      expect((await anonymous.get(`/public/referrals/${code.toUpperCase()}`)).body.data?.code).toBe(code);
      for (const bad of ['unknown-code-zz', 'a', '%00', 'x'.repeat(300), '..%2F..']) {
        const answer = await anonymous.get(`/public/referrals/${bad}`);
        expect([bad, answer.status]).toEqual([bad, 404]);
        expectError(answer, 404, 'not_found');
      }
      // taken by another business: 409 referral_code_taken naming the field; nothing changes
      const other = await liveOwner();
      const before = (await other.as.get('/business')).body.data;
      expectError(await other.as.patch(`/businesses/${other.businessId}`, { referral_code: code }), 409, 'referral_code_taken', 'referral_code');
      expectError(await other.as.patch(`/businesses/${other.businessId}`, { referral_code: code, product_updates: true }), 409, 'referral_code_taken', 'referral_code');
      expect((await other.as.get('/business')).body.data).toEqual(before);
      // a simulated business has a wallet: its code is locked
      const simulated = await owner();
      expectError(await simulated.as.patch(`/businesses/${simulated.businessId}`, { referral_code: `sim-${Date.now().toString(36)}` }), 409, 'referral_locked');
      await app.api.app.get(BusinessService).suspendBusiness(live.businessId, { reason: 'audit', actor: operatorActor('audit') });
      expectError(await anonymous.get(`/public/referrals/${code}`), 404, 'not_found');
    });
  });

  describe('referrals at sign-up (decision 0035: the referrer recorded at sign-up)', () => {
    /** The referrer BusinessCreated recorded for a business, or null. */
    async function referredBy(businessId: string) {
      const events = await app.api.app.get<EventStore>(EVENT_STORE).readStream(`business-${businessId}`);
      return (events.find((e) => e.type === 'BusinessCreated')!.data as { referred_by?: unknown }).referred_by ?? null;
    }

    async function referrer() {
      const live = await liveOwner();
      const code = `inv-${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
      expect((await live.as.patch(`/businesses/${live.businessId}`, { referral_code: code })).status).toBe(200);
      return { ...live, code };
    }

    it('POST /accounts takes a referral code (case folded): the first business records its referrer; an unknown or malformed code is 400 and sends nothing', async () => {
      const inviter = await referrer();
      const b = new Browser(app.api);
      const email = newEmail('referred');
      for (const [code, field] of [['no-such-code', 'referral_code'], [42, 'referral_code'], [null, 'referral_code'], ['x'.repeat(65), 'referral_code']] as const) {
        const refused = await b.post('/accounts', { email, password: PASSWORD, business_name: 'Referred', simulated: true, referral_code: code }, challenge('sign_up'));
        expectError(refused, 400, 'invalid_request', field);
      }
      expect(app.smtp.countTo(email)).toBe(0);
      const started = await b.post('/accounts', { email, password: PASSWORD, business_name: 'Referred', simulated: true, referral_code: ` ${inviter.code.toUpperCase()} ` }, challenge('sign_up'));
      expect(started.status).toBe(201);
      const verified = await b.post('/accounts/verify', { signup_id: started.body.data.id, code: await app.smtp.code(email) });
      expect(verified.status).toBe(201);
      const businessId = verified.body.data.account.businesses[0].id as string;
      expect(await referredBy(businessId)).toEqual({ business_id: inviter.businessId, code: inviter.code });
      // a sign-up without a code: no referrer
      const plain = await signUp(app, new Browser(app.api));
      expect(await referredBy(plain.businessId)).toBeNull();
    });

    it('a code its holder changed between the start and the verify: the sign-up still completes, with no referrer', async () => {
      const inviter = await referrer();
      const b = new Browser(app.api);
      const email = newEmail('late');
      const started = await b.post('/accounts', { email, password: PASSWORD, business_name: 'Late', simulated: true, referral_code: inviter.code }, challenge('sign_up'));
      expect(started.status).toBe(201);
      expect((await inviter.as.patch(`/businesses/${inviter.businessId}`, { referral_code: `${inviter.code}-new` })).status).toBe(200);
      const verified = await b.post('/accounts/verify', { signup_id: started.body.data.id, code: await app.smtp.code(email) });
      expect(verified.status).toBe(201);
      expect(await referredBy(verified.body.data.account.businesses[0].id)).toBeNull();
    });

    it('a suspended referrer’s code is refused as unknown, as GET /public/referrals/{code} answers it (404): at sign-up, on POST /businesses and by the operator', async () => {
      const inviter = await referrer();
      await app.api.app.get(BusinessService).suspendBusiness(inviter.businessId, { reason: 'audit', actor: operatorActor('audit') });
      expectError(await new Client(app.api, null).get(`/public/referrals/${inviter.code}`), 404, 'not_found');
      const email = newEmail('suspended-ref');
      expectError(await new Browser(app.api).post('/accounts', { email, password: PASSWORD, business_name: 'Nope', simulated: true, referral_code: inviter.code }, challenge('sign_up')), 400, 'invalid_request', 'referral_code');
      expect(app.smtp.countTo(email)).toBe(0);
      const o = await owner();
      expectError(await o.b.post('/businesses', { name: 'Nope', referral_code: inviter.code }), 400, 'invalid_request', 'referral_code');
      await expect(app.api.app.get(BusinessService).createBusiness({ name: 'Nope', simulated: true, referral_code: inviter.code })).rejects.toMatchObject({ code: 'invalid_request', field: 'referral_code' });
      // reinstated, it refers again
      await app.api.app.get(BusinessService).reinstateBusiness(inviter.businessId, { actor: operatorActor('audit') });
      const created = await app.api.app.get(BusinessService).createBusiness({ name: 'Referred', simulated: true, referral_code: inviter.code });
      expect(await referredBy(created.business.id)).toEqual({ business_id: inviter.businessId, code: inviter.code });
    });

    it('POST /businesses (a signed-in person’s new business) takes a referral code too; an unknown one is 400 and creates nothing', async () => {
      const inviter = await referrer();
      const o = await owner();
      const before = (await o.b.get('/me')).body.data.businesses.length;
      expectError(await o.b.post('/businesses', { name: 'Second', referral_code: 'no-such-code' }), 400, 'invalid_request', 'referral_code');
      expectError(await o.b.post('/businesses', { name: 'Second', referral_code: ['x'] }), 400, 'invalid_request', 'referral_code');
      expect((await o.b.get('/me')).body.data.businesses).toHaveLength(before);
      const created = await o.b.post('/businesses', { name: 'Second', referral_code: inviter.code.toUpperCase() });
      expect(created.status).toBe(201);
      expect(await referredBy(created.body.data.id)).toEqual({ business_id: inviter.businessId, code: inviter.code });
    });
  });

  describe('wallet', () => {
    it('GET /wallet shows pending_change; restricted keys need wallet:read; another business never sees it', async () => {
      const o = await owner();
      const wallet = await o.as.get('/wallet');
      expect(wallet.status).toBe(200);
      expect(wallet.body.data).toMatchObject({ kind: 'wallet', id: expect.stringMatching(/^wal_/), pending_change: null });
      const key = await keyOf(o);
      expect((await key.get('/wallet')).body.data).toEqual(wallet.body.data);
      const noWallet = await keyOf(o, { type: 'restricted', mode: 'test', permissions: { business: 'read' } });
      expectError(await noWallet.get('/wallet'), 403, 'permission_denied');
      const reader = await keyOf(o, { type: 'restricted', mode: 'test', permissions: { wallet: 'read' } });
      expect((await reader.get('/wallet')).status).toBe(200);
      expectError(await reader.call('DELETE', '/wallet'), 403, 'session_required');
      expectError(await key.call('DELETE', '/wallet'), 403, 'session_required');
      const live = await liveOwner();
      expectError(await live.as.get('/wallet'), 404, 'not_found');
    });

    it('POST /wallet refuses malformed bodies (400 naming the field) and creates nothing', async () => {
      const live = await liveOwner();
      const cases: [unknown, string | null][] = [
        [{ type: 'paper' }, 'type'],
        [{ type: null }, 'type'],
        [{ type: 42 }, 'type'],
        [{ type: 'created', unknown: 1 }, 'unknown'],
        [{ type: 'created', evm_xpub: 'xpub' }, 'evm_xpub'],
        [{ type: 'imported' }, 'recovery_phrase'],
        [{ type: 'imported', recovery_phrase: null }, 'recovery_phrase'],
        [{ type: 'imported', recovery_phrase: 'word '.repeat(50_000) }, 'recovery_phrase'],
        [{ type: 'imported', recovery_phrase: ['legal', 'winner'] }, 'recovery_phrase'],
        [{ type: 'external' }, null],
        [{ type: 'external', evm_xpub: 'x'.repeat(100_000) }, 'evm_xpub'],
        [{ type: 'external', solana_address: 42 }, 'solana_address'],
      ];
      for (const [body, field] of cases) {
        const answer = await live.as.post('/wallet', body);
        expect([JSON.stringify(body).slice(0, 60), answer.status]).toEqual([JSON.stringify(body).slice(0, 60), 400]);
        expectError(answer, 400, 'invalid_request', field === null ? undefined : field);
      }
      for (const text of ['null', '[]', '"created"', '{']) {
        const answer = await raw(live.b, 'POST', '/wallet', text, { 'service-business': live.businessId });
        expect([text, answer.status]).toEqual([text, 400]);
      }
      expectError(await live.as.get('/wallet'), 404, 'not_found');
      const created = await live.as.post('/wallet', { type: 'created' });
      expect(created.status).toBe(201);
      expect(created.body.data.recovery_phrase.split(' ')).toHaveLength(24);
      expect(JSON.stringify((await live.as.get('/wallet')).body)).not.toContain(created.body.data.recovery_phrase);
      expectError(await live.as.post('/wallet', { type: 'created' }), 409, 'wallet_exists');
    });

    it('wallet change cancels: malformed link bodies are 400, a session reaches only its own changes, API keys 403', async () => {
      const o = await owner();
      expect((await o.as.post(`/businesses/${o.businessId}/finish-setup`)).status).toBe(200);
      const requested = await o.as.delete('/wallet');
      expect(requested.status).toBe(202);
      const change = requested.body.data;
      expect(change).toEqual({
        kind: 'wallet_change',
        id: expect.stringMatching(/^wcr_/),
        change: 'delete',
        status: 'pending',
        wallet_id: expect.stringMatching(/^wal_/),
        effective_at: new Date(Date.parse(change.created_at) + 24 * 3600_000).toISOString(),
        canceled_at: null,
        created_at: expect.any(String),
      });
      expect((await o.as.get('/wallet')).body.data.pending_change).toEqual(change);
      expectError(await o.as.delete('/wallet'), 409, 'wallet_change_pending');
      const key = await keyOf(o);
      expectError(await key.post(`/wallet-changes/${change.id}/cancel`), 403, 'session_required');
      const bob = await owner();
      expectError(await bob.as.post(`/wallet-changes/${change.id}/cancel`), 404, 'not_found');
      expectError(await bob.as.post('/wallet-changes/wcr_nonsense/cancel'), 404, 'not_found');
      const visitor = new Browser(app.api);
      for (const body of [{}, { token: null }, { token: 42 }, { token: ['x'] }, { token: 'x'.repeat(100_000) }, { token: 'abc', extra: 1 }]) {
        const answer = await visitor.post('/wallet-changes/cancel', body);
        expect([JSON.stringify(body).slice(0, 40), answer.status]).toEqual([JSON.stringify(body).slice(0, 40), 400]);
        expect(['invalid_request', 'invalid_token']).toContain(answer.body.error.code);
        expect(answer.body.error.field).toBe(Object.keys(body).find((k) => k === 'extra') ?? 'token');
      }
      expectError(await visitor.post('/wallet-changes/cancel', { token: `${o.businessId}.AAAA` }), 400, 'invalid_token', 'token');
      expect((await o.as.get('/wallet')).body.data.pending_change).toEqual(change);
      const mail = await eventually(() => app.smtp.server.messages.filter((m) => m.to.includes(o.person.email.toLowerCase()) && /wallet-change\/cancel#token=/.test(m.text ?? '')).at(-1), { what: 'cancel link' });
      const token = /#token=([A-Za-z0-9_.-]+)$/.exec(linkIn(mail))![1];
      // bob's session cannot use the link to reach... it is public: the link is the proof; it cancels ann's change only
      const canceled = await visitor.post('/wallet-changes/cancel', { token });
      expect(canceled.status).toBe(200);
      expect(canceled.body.data).toMatchObject({ id: change.id, status: 'canceled', canceled_at: expect.any(String) });
      expectError(await visitor.post('/wallet-changes/cancel', { token }), 400, 'invalid_token', 'token');
      expect((await o.as.get('/wallet')).body.data.pending_change).toBeNull();
    });
  });

  describe('Idempotency-Key on the business side’s POST routes (§8.3, §8.5)', () => {
    it('finish-setup and a dashboard cancel keep their 2xx for a replay (Idempotent-Replayed: true); the key on another path is 409 idempotency_key_reused', async () => {
      const o = await owner();
      const finish = `/businesses/${o.businessId}/finish-setup`;
      const first = await o.as.post(finish, undefined, { 'idempotency-key': 'audit-finish-1' });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const replay = await o.as.post(finish, undefined, { 'idempotency-key': 'audit-finish-1' });
      expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body]).toEqual([200, 'true', first.body]);

      const requested = await o.as.delete('/wallet');
      expect(requested.status).toBe(202);
      const cancel = `/wallet-changes/${requested.body.data.id}/cancel`;
      const canceled = await o.as.post(cancel, undefined, { 'idempotency-key': 'audit-cancel-1' });
      expect(canceled.body.data.status).toBe('canceled');
      const again = await o.as.post(cancel, undefined, { 'idempotency-key': 'audit-cancel-1' });
      expect([again.status, again.headers.get('idempotent-replayed'), again.body]).toEqual([200, 'true', canceled.body]);
      expectError(await o.as.post(finish, undefined, { 'idempotency-key': 'audit-cancel-1' }), 409, 'idempotency_key_reused');
      expectError(await o.as.post(cancel, undefined, { 'idempotency-key': 'audit-finish-1' }), 409, 'idempotency_key_reused');
    });
  });

  describe('a suspended business', () => {
    it('can read and manage its settings, keys and wallet, and cannot take payments', async () => {
      const o = await owner();
      const key = await keyOf(o);
      await app.api.app.get(BusinessService).suspendBusiness(o.businessId, { reason: 'audit', actor: operatorActor('audit') });
      const business = (await key.get('/business')).body.data;
      expect(business).toMatchObject({ status: 'suspended', suspended_at: expect.any(String) });
      expectError(await key.post('/payments', { amount: 1000, currency: 'USD' }), 403, 'business_suspended');
      expect((await key.get('/wallet')).status).toBe(200);
      expect((await key.patch(`/businesses/${o.businessId}`, { product_updates: true })).status).toBe(200);
      expect((await o.as.get('/api-keys')).status).toBe(200);
      expect((await o.as.get('/business')).body.data.status).toBe('suspended');
    });
  });
});
