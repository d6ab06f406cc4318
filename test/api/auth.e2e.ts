import { request as httpRequest } from 'node:http';
import { Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import { BusinessService } from '@lib/businesses';
import { DashboardOnly, LiveModeAction, Public, RequiresPermission } from '../../apps/api/src/auth/auth.decorators';
import { Auth, RequestAuth } from '../../apps/api/src/auth/request-auth';
import { appPerSuite, businessWithKey, startTestApi } from '../support/fixtures';

/** Routes carrying each kind of requirement, as payments, checkouts and wallets will. */
@Controller('probe-auth')
class ProbeAuthController {
  @RequiresPermission('payments', 'read')
  @Get('payments')
  read(@Auth() auth: RequestAuth) {
    return { data: summary(auth) };
  }

  @RequiresPermission('payments', 'write')
  @LiveModeAction()
  @HttpCode(200)
  @Post('payments')
  write(@Auth() auth: RequestAuth) {
    return { data: summary(auth) };
  }

  @Public()
  @Get('public')
  open(@Auth() auth: RequestAuth) {
    return { data: summary(auth) };
  }

  @DashboardOnly()
  @Get('dashboard')
  dashboard() {
    return { data: {} };
  }
}
function summary(auth: RequestAuth) {
  return auth.kind === 'api_key' ? { kind: auth.kind, business: auth.business.id, key: auth.key.type, mode: auth.key.mode } : { kind: auth.kind };
}
@Module({ controllers: [ProbeAuthController] })
class ProbeAuthModule {}

describe('authentication and keys (spec §5)', () => {
  const suite = appPerSuite(
    () => startTestApi({}, [ProbeAuthModule]),
    async (api) => ({
      service: api.app.get(BusinessService),
      live: await businessWithKey(api, false, 'Live Shop', { contact: false }),
      simulated: await businessWithKey(api, true, 'Sandbox', { contact: false }),
      other: await businessWithKey(api, false, 'Other', { contact: false }),
    }),
  );

  const call = async (method: string, path: string, key?: string | null, headers: Record<string, string> = {}) => {
    const response = await fetch(`${suite.api.base}${path}`, {
      method,
      headers: { ...(key === undefined || key === null ? {} : { authorization: key.startsWith('raw:') ? key.slice(4) : `Bearer ${key}` }), ...headers },
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };
  const expectError = (r: { status: number; body: { error: { code: string } } }, status: number, code: string) => {
    expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
  };

  it('answers a missing key with 401 unauthenticated and a malformed or unknown one with 401 invalid_api_key, both with WWW-Authenticate: Bearer', async () => {
    const none = await call('GET', '/business');
    expectError(none, 401, 'unauthenticated');
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    for (const header of ['raw:Basic dXNlcjpwYXNz', 'raw:Bearer', 'raw:Bearer ', `raw:Bearer  ${suite.live.secret_key}`, `raw:Bearer ${suite.live.secret_key} x`, 'raw:Token abc']) {
      const r = await call('GET', '/business', header);
      expectError(r, 401, 'invalid_api_key');
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
    }
    // the message says what is wrong: the scheme, or what follows it (a placeholder copied literally; new-user audit, 2026-11-29)
    expect((await call('GET', '/business', 'raw:Token abc')).body.error.message).toBe('The Authorization header must be "Bearer <key>".');
    expect((await call('GET', '/business', 'raw:Bearer sk_test_...')).body.error.message).toMatch(/^What follows "Bearer " is not an API key: a key is letters, digits and underscores/);
    // the scheme's name is case-insensitive (RFC 9110 §11.1); the key is not
    for (const scheme of ['bearer', 'BEARER']) expect((await call('GET', '/business', `raw:${scheme} ${suite.live.secret_key}`)).status).toBe(200);
    expectError(await call('GET', '/business', `raw:Bearer ${suite.live.secret_key.toUpperCase()}`), 401, 'invalid_api_key');
    expectError(await call('GET', '/business', 'sk_live_' + 'A'.repeat(32)), 401, 'invalid_api_key');
    expectError(await call('GET', '/business', suite.live.secret_key.slice(0, -1) + (suite.live.secret_key.endsWith('A') ? 'B' : 'A')), 401, 'invalid_api_key');
  });

  it('refuses a request with more than one Authorization header: 401 invalid_api_key with WWW-Authenticate, never the first one (audit 2026-11-30, F3)', async () => {
    /** GET `path` with these header lines as sent (fetch would merge repeated ones; Node's parser keeps the first Authorization); an array of headers gets no Host unless given. */
    const rawGet = (path: string, lines: [string, string][]) =>
      new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
        const url = new URL(`${suite.api.base}${path}`);
        const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers: [['Host', url.host], ...lines].flat() }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text ? JSON.parse(text) : null }));
        });
        request.on('error', reject);
        request.end();
      });
    const live = `Bearer ${suite.live.secret_key}`;
    const other = `Bearer ${suite.other.secret_key}`;
    expect((await rawGet('/business', [['Authorization', live]])).body.data.id).toBe(suite.live.business.id); // one header: as ever
    for (const lines of [
      [['Authorization', other], ['Authorization', live]],
      [['Authorization', live], ['Authorization', other]],
      [['Authorization', live], ['Authorization', 'Bearer garbage']],
      [['Authorization', live], ['authorization', live]], // the same key twice, in another case
      [['Authorization', ''], ['Authorization', live]],
    ] as [string, string][][]) {
      for (const path of ['/business', '/probe-auth/public']) {
        const r = await rawGet(path, lines);
        expect({ path, lines: lines.map(([, v]) => v.slice(0, 12)), status: r.status, code: r.body?.error?.code, challenge: r.headers['www-authenticate'] }).toEqual({
          path,
          lines: lines.map(([, v]) => v.slice(0, 12)),
          status: 401,
          code: 'invalid_api_key',
          challenge: 'Bearer',
        });
        expect(r.body.error.message).toBe('Send one Authorization header, not several.');
      }
    }
  });

  it('lets a secret key act for its own business; a publishable key only on public routes', async () => {
    const mine = await call('GET', '/business', suite.live.secret_key);
    expect(mine.status).toBe(200);
    expect(mine.body.data).toMatchObject({ kind: 'business', id: suite.live.business.id, name: 'Live Shop', status: 'active', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect(JSON.stringify(mine.body)).not.toContain(suite.live.secret_key);
    expectError(await call('GET', '/business', suite.live.publishable_key), 401, 'invalid_api_key');
    expect((await call('GET', '/probe-auth/public', suite.live.publishable_key)).body.data).toEqual({ kind: 'anonymous' });
    expect((await call('GET', '/probe-auth/public')).body.data).toEqual({ kind: 'anonymous' });
    expect((await call('GET', '/probe-auth/public', suite.live.secret_key)).body.data).toEqual({ kind: 'api_key', business: suite.live.business.id, key: 'secret', mode: 'live' });
    expectError(await call('GET', '/probe-auth/public', 'sk_live_' + 'B'.repeat(32)), 401, 'invalid_api_key');
  });

  it('refuses a business header naming a business the key cannot act for (403 business_forbidden)', async () => {
    const foreign = await call('GET', '/business', suite.live.secret_key, { 'service-business': suite.other.business.id });
    expectError(foreign, 403, 'business_forbidden');
    expect(foreign.body.error.field).toBe('Service-Business'); // as the session's refusals spell it
    expectError(await call('GET', '/business', suite.live.secret_key, { 'service-business': 'biz_nope' }), 403, 'business_forbidden');
    expect((await call('GET', '/business', suite.live.secret_key, { 'service-business': suite.live.business.id })).status).toBe(200);
  });

  it('gives restricted keys only what their permissions grant (403 permission_denied)', async () => {
    const reader = await suite.service.createKey({ businessId: suite.live.business.id, kind: 'restricted', mode: 'live', permissions: 'payments:read' });
    const writer = await suite.service.createKey({ businessId: suite.live.business.id, kind: 'restricted', mode: 'live', permissions: 'payments:write,business:read' });
    expect((await call('GET', '/probe-auth/payments', reader.secret)).body.data).toMatchObject({ key: 'restricted' });
    expectError(await call('POST', '/probe-auth/payments', reader.secret), 403, 'permission_denied');
    expectError(await call('GET', '/business', reader.secret), 403, 'permission_denied');
    expect((await call('POST', '/probe-auth/payments', writer.secret)).status).toBe(200); // write implies read
    expect((await call('GET', '/probe-auth/payments', writer.secret)).status).toBe(200);
    expect((await call('GET', '/business', writer.secret)).status).toBe(200);
    // public routes need no credentials: a restricted key there is the caller's, not a refusal
    expect((await call('GET', '/probe-auth/public', reader.secret)).body.data).toMatchObject({ kind: 'api_key', key: 'restricted' });
  });

  it('refuses a test key on a live business for real-money actions only (403 test_mode_unavailable)', async () => {
    const test = await suite.service.createKey({ businessId: suite.live.business.id, kind: 'secret', mode: 'test' });
    expect(test.secret).toMatch(/^sk_test_/);
    expectError(await call('POST', '/probe-auth/payments', test.secret), 403, 'test_mode_unavailable');
    expect((await call('GET', '/probe-auth/payments', test.secret)).status).toBe(200);
    expect((await call('POST', '/probe-auth/payments', suite.live.secret_key)).body.data).toMatchObject({ mode: 'live' });
    expect(suite.simulated.secret_key).toMatch(/^sk_test_/);
    expect((await call('POST', '/probe-auth/payments', suite.simulated.secret_key)).body.data).toMatchObject({ business: suite.simulated.business.id, mode: 'test' });
  });

  it('answers API keys on dashboard-only routes with 403 session_required', async () => {
    expectError(await call('GET', '/api-keys', suite.live.secret_key), 403, 'session_required');
    expectError(await call('DELETE', '/wallet', suite.live.secret_key), 403, 'session_required');
    expectError(await call('POST', '/wallet/transactions', suite.live.secret_key), 403, 'session_required');
    expectError(await call('GET', '/probe-auth/dashboard', suite.live.secret_key), 403, 'session_required');
    expectError(await call('GET', '/api-keys'), 401, 'unauthenticated');
  });

  it('tells a caller with no credentials on a dashboard-only route to sign in, not to send a key (people audit L1, 2026-11-29)', async () => {
    const SIGN_IN = 'Sign in first: this route needs a dashboard session.';
    for (const [method, path] of [['GET', '/api-keys'], ['POST', '/api-keys'], ['PATCH', '/api-keys/key_nothing'], ['GET', '/wallet/send-context'], ['GET', '/probe-auth/dashboard']] as const) {
      const anonymous = await call(method, path);
      expect([method, path, anonymous.status, anonymous.body.error.code, anonymous.body.error.message]).toEqual([method, path, 401, 'unauthenticated', SIGN_IN]);
      // the same with a Service-Business header: only a session would do here either
      const named = await call(method, path, null, { 'service-business': suite.live.business.id });
      expect([method, path, named.status, named.body.error.message]).toEqual([method, path, 401, SIGN_IN]);
    }
    // a route an API key may call still says to send one
    const business = await call('GET', '/business');
    expect([business.status, business.body.error.code, business.body.error.message]).toEqual([401, 'unauthenticated', 'No API key: send Authorization: Bearer <secret key>.']);
  });

  it('stops accepting a revoked key at once', async () => {
    const key = await suite.service.createKey({ businessId: suite.other.business.id, kind: 'secret', mode: 'live' });
    expect((await call('GET', '/business', key.secret)).status).toBe(200);
    await suite.service.revokeKey(key.key.id);
    expectError(await call('GET', '/business', key.secret), 401, 'invalid_api_key');
  });
});
