/**
 * The operator creates businesses and keys with the CLI while `npm start` runs on the
 * embedded default with the same DATA_DIR (through the server's loopback admin endpoint), and
 * directly against PostgreSQL when no server is running.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BusinessService, businessesProjector } from '@lib/businesses';
import { openEventStore } from '@lib/eventstore';
import { ProjectionRunner } from '@lib/projections';
import { ROOT, cli } from '../support/cli';
import { freePort } from '../support/free-port';
import { withTestDatabase } from '../support/postgres';
import { tempDir } from '../support/temp-dir';
import { committedHead } from '../support/log-head';

describe('CLI businesses and keys against a running server on the embedded store', () => {
  const dir = tempDir();
  let server: ChildProcess;
  let base: string;
  let serverLog = '';
  const env = () => ({ DATA_DIR: dir.path, DATABASE_URL: '' });

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}/api/v1`;
    server = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, 'apps', 'api', 'src', 'main.ts')], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '', DATA_DIR: dir.path, PORT: String(port), DATABASE_URL: '', EVENTSTORE_URL: '', REDIS_URL: '', ROLE: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (c) => (serverLog += c));
    server.stderr!.on('data', (c) => (serverLog += c));
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${serverLog}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 90_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    dir.remove();
  });

  const get = async (path: string, key: string) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as { data?: { id: string; name: string }; error?: { code: string } } };
  };

  it('the admin endpoint answers a body that is not a JSON object (null, an array, a number) with 400 invalid_json, never a 500', async () => {
    const { url, token } = JSON.parse(readFileSync(join(dir.path, 'admin.json'), 'utf8')) as { url: string; token: string };
    for (const path of ['/businesses', '/keys', '/businesses/biz_x/suspend']) {
      for (const body of ['null', '[]', '5', '"text"', '{']) {
        const response = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
        expect({ path, body, status: response.status, code: ((await response.json()) as { error: { code: string } }).error.code }).toEqual({ path, body, status: 400, code: 'invalid_json' });
      }
    }
  });

  /** The members of a new key as POST /api-keys answers it (NewApiKey in the service's OpenAPI document): the key, its whole secret in `secret`. */
  const newApiKeyMembers = async () => {
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    return Object.keys(document.components.schemas.NewApiKey.properties).sort();
  };

  it('creates a simulated business and keys through the running server, and the keys work at once', async () => {
    const adminFile = join(dir.path, 'admin.json');
    expect(statSync(adminFile).mode & 0o777).toBe(0o600);
    const members = await newApiKeyMembers();
    expect(members).toContain('secret');

    const created = await cli(['businesses', 'create', '--name', 'Corner Café', '--simulated', '--json'], env());
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const lines = created.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]);
    // each key as the API shows a new key, its secret named as the API names it (`secret`, not `secret_key`)
    expect(Object.keys(result).sort()).toEqual(['business', 'keys']);
    expect(result.business).toMatchObject({ kind: 'business', id: expect.stringMatching(/^biz_/), name: 'Corner Café', simulated: true });
    expect(result.keys.map((k: object) => Object.keys(k).sort())).toEqual([members, members]);
    const [secretKey, publishableKey] = result.keys;
    expect(secretKey).toMatchObject({ kind: 'api_key', business_id: result.business.id, type: 'secret', mode: 'test', secret: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32}$/) });
    expect(publishableKey).toMatchObject({ kind: 'api_key', business_id: result.business.id, type: 'publishable', mode: 'test', secret: expect.stringMatching(/^pk_test_[0-9A-Za-z]{32}$/) });
    expect(secretKey.redacted_key).toBe(`sk_test_…${secretKey.secret.slice(-4)}`);
    expect(await get('/business', secretKey.secret)).toEqual({ status: 200, body: { data: expect.objectContaining({ id: result.business.id }) } });

    const restricted = await cli(['keys', 'create', '--business', result.business.id, '--test', '--restricted', 'payments:read', '--json'], env());
    expect(restricted.code).toBe(0);
    const key = JSON.parse(restricted.stdout);
    // the same object as businesses create prints for each key, and as POST /api-keys answers
    expect(Object.keys(key).sort()).toEqual(members);
    expect(key.secret).toMatch(/^rk_test_/);
    expect(key).toMatchObject({ kind: 'api_key', id: expect.stringMatching(/^key_/), type: 'restricted', mode: 'test', permissions: { payments: 'read' } });
    expect((await get('/business', key.secret)).body.error?.code).toBe('permission_denied'); // it authenticates, without business access

    // a live key on a simulated business: the refusal names the flag to add (new-user audit, 2026-11-29)
    const liveKey = await cli(['keys', 'create', '--business', result.business.id, '--restricted', 'payments:read'], env());
    expect(liveKey.code).not.toBe(0);
    expect(liveKey.stderr.trim()).toBe('invalid_request: A simulated business has test keys only: add --test.');

    // a key is one kind: asking for two is refused, and no key is made
    const both = await cli(['keys', 'create', '--business', result.business.id, '--restricted', 'payments:read', '--publishable'], env());
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/--publishable.*cannot be used with.*--restricted/);
    expect(both.stdout).toBe('');

    const listed = await cli(['keys', 'list', '--business', result.business.id, '--json'], env());
    expect(listed.code).toBe(0);
    const keys = listed.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(keys.map((k: { type: string }) => k.type).sort()).toEqual(['publishable', 'restricted', 'secret']);
    for (const secret of [secretKey.secret, publishableKey.secret, key.secret]) expect(listed.stdout).not.toContain(secret);
    expect(listed.stdout).not.toMatch(/hash/);

    const table = await cli(['keys', 'list', '--business', result.business.id], env());
    expect(table.stdout).toMatch(/^id\s+type\s+mode\s+key/);

    const secretKeyId = keys.find((k: { type: string }) => k.type === 'secret').id;
    expect(secretKeyId).toBe(secretKey.id);
    const revoked = await cli(['keys', 'revoke', secretKeyId], env());
    expect(revoked.stderr).toBe('');
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^revoked ${secretKeyId} `));
    expect((await get('/business', secretKey.secret)).body.error?.code).toBe('invalid_api_key');

    const live = await cli(['businesses', 'create', '--name', 'Live Co', '--json'], env());
    expect(JSON.parse(live.stdout).keys.map((k: { secret: string }) => k.secret)).toEqual([expect.stringMatching(/^sk_live_/), expect.stringMatching(/^pk_live_/)]);
  });

  it('a new user takes payments with the CLI’s simulated business on the running server: succeeded, underpaid → remainder → succeeded, claim → needs_review; timeline and receipt', async () => {
    const created = JSON.parse((await cli(['businesses', 'create', '--name', 'First Shop', '--simulated', '--json'], env())).stdout);
    const key: string = created.keys[0].secret;
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, auth = true) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...(auth ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    let n = 0;
    const pay = async (simulate: string) => {
      const payment = (await call('POST', '/payments', { amount: 2500, currency: 'USD', description: 'T-shirt' })).body.data;
      const checkout = (await call('POST', '/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDC', network: 'ethereum' }, { 'idempotency-key': `k${++n}` }, false)).body.data;
      const sent = await call('POST', `/checkouts/${checkout.id}/mark-sent`, { simulate }, {}, false);
      expect(sent.status).toBe(200);
      await call('POST', '/test_clock/advance', { seconds: 30 });
      return { payment, checkout };
    };
    const status = async (id: string) => (await call('GET', `/payments/${id}`)).body.data;

    const exact = await pay('exact');
    const done = await status(exact.payment.id);
    expect(done.status).toBe('succeeded');
    expect(done.events.map((e: { type: string }) => e.type)).toEqual(['created', 'method_selected', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'succeeded']);
    const receipt = await call('GET', `/public/receipts/${exact.payment.id}`, undefined, {}, false);
    expect(receipt.body.data).toMatchObject({ kind: 'receipt', status: 'succeeded', business: { name: 'First Shop' } });

    const short = await pay('underpaid');
    expect((await status(short.payment.id)).status).toBe('underpaid');
    await call('POST', '/test_clock/advance', { seconds: 15 * 60 });
    const remainder = await call('POST', `/payments/${short.payment.id}/request-remainder`, undefined, { 'idempotency-key': 'rem-1' });
    expect(remainder.status).toBe(201);
    await call('POST', `/checkouts/${remainder.body.data.checkout.id}/mark-sent`, {}, {}, false);
    await call('POST', '/test_clock/advance', { seconds: 30 });
    const paid = await status(short.payment.id);
    expect(paid.status).toBe('succeeded');
    expect(paid.events.map((e: { type: string }) => e.type)).toContain('remainder_paid');

    const payment = (await call('POST', '/payments', { amount: 2500, currency: 'USD' })).body.data;
    const checkout = (await call('POST', '/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDC', network: 'ethereum' }, { 'idempotency-key': 'claim-1' }, false)).body.data;
    await call('POST', `/checkouts/${checkout.id}/cancel`, undefined, {}, false);
    const claim = await call('POST', `/checkouts/${checkout.id}/claim`, { tx_hash: '0x' + '5a'.repeat(32) }, {}, false);
    expect(claim.body.data.status).toBe('needs_review');
    const review = await status(payment.id);
    expect(review.status).toBe('needs_review');
    expect(review.events.map((e: { type: string }) => e.type)).toContain('claimed');
  });

  it('explains what went wrong: unknown business, bad permissions, missing options', async () => {
    const unknown = await cli(['keys', 'create', '--business', 'biz_nope'], env());
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/not_found/);
    const created = JSON.parse((await cli(['businesses', 'create', '--name', 'P', '--simulated', '--json'], env())).stdout);
    // keys list of an id that names no business (a mistyped one, a link's id): not_found, exit 2, as keys create says, never an empty table (ops audit F2)
    for (const id of ['biz_nope', 'lnk_JuaiNgtnoSi59R2URjUdBnU5']) {
      for (const json of [[], ['--json']]) {
        const listed = await cli(['keys', 'list', '--business', id, ...json], env());
        expect({ code: listed.code, stdout: listed.stdout, stderr: listed.stderr.trim() }).toEqual({ code: 2, stdout: '', stderr: `not_found: No business ${id}.` });
      }
    }
    expect((await cli(['keys', 'list', '--business', created.business.id, '--json'], env())).code).toBe(0);
    const bad = await cli(['keys', 'create', '--business', created.business.id, '--test', '--restricted', 'payments:admin'], env());
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/invalid_request.*permission|permission.*admin/i);
    const missing = await cli(['businesses', 'create'], env());
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--name/);
  });
});

describe('CLI businesses on an embedded store no server runs on', () => {
  const dir = tempDir('cli-biz-alone-');
  afterAll(() => dir.remove());

  it('says which store it wrote to, so a key the server rejects is not a mystery (new-user audit, 2026-11-29)', async () => {
    const created = await cli(['businesses', 'create', '--name', 'Alone', '--simulated', '--json'], { DATA_DIR: dir.path, DATABASE_URL: '' }, 60_000);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).business).toMatchObject({ name: 'Alone', simulated: true });
    expect(created.stderr.trim()).toBe(`store: embedded, ${dir.path} (no server is running on it; set DATA_DIR to a running server's to act on its store)`);
  }, 90_000);
});

describe('CLI businesses and keys directly against PostgreSQL', () => {
  it('creates a business whose keys the service then accepts', async () => {
    await withTestDatabase('clibiz', async (database) => {
      const created = await cli(['businesses', 'create', '--name', 'Postgres Shop', '--json'], { DATABASE_URL: database.url });
      expect(created.code).toBe(0);
      const result = JSON.parse(created.stdout);
      // in this process as through a server: each key with its secret in `secret`, the secret key first
      expect(result.keys.map((k: { type: string; mode: string; secret: string }) => [k.type, k.mode, k.secret.slice(0, 8)])).toEqual([
        ['secret', 'live', 'sk_live_'],
        ['publishable', 'live', 'pk_live_'],
      ]);
      expect(result).not.toHaveProperty('secret_key');
      const opened = await openEventStore({ databaseUrl: database.url });
      const runner = new ProjectionRunner(opened.store, opened.db, [businessesProjector]);
      await runner.start();
      try {
        const service = new BusinessService(opened.store, opened.db, runner);
        const found = await service.authenticate(result.keys[0].secret);
        expect(found?.business).toMatchObject({ id: result.business.id, name: 'Postgres Shop', simulated: false });
        // --referral-code: the new business records the business whose code it gave (decision 0035)
        const referred = await cli(['businesses', 'create', '--name', 'Referred Shop', '--referral-code', result.business.referral_code.toUpperCase(), '--json'], { DATABASE_URL: database.url });
        expect(referred.code).toBe(0);
        const referredId = JSON.parse(referred.stdout).business.id;
        expect(await runner.waitFor((await committedHead(opened.store))!, 20_000)).toBe(true);
        expect((await opened.db.query<{ referred_by: string }>(`SELECT referred_by FROM businesses WHERE id = $1`, [referredId])).rows[0].referred_by).toBe(result.business.id);
        // keys list of a business that does not exist, in this process too: not_found, exit 2 (ops audit F2)
        const nobody = await cli(['keys', 'list', '--business', 'biz_nope'], { DATABASE_URL: database.url });
        expect({ code: nobody.code, stdout: nobody.stdout, stderr: nobody.stderr.trim() }).toEqual({ code: 2, stdout: '', stderr: 'not_found: No business biz_nope.' });
        expect((await cli(['keys', 'list', '--business', referredId, '--json'], { DATABASE_URL: database.url })).stdout.trim().split('\n')).toHaveLength(2);
        const unknown = await cli(['businesses', 'create', '--name', 'Nobody', '--referral-code', 'no-such-code'], { DATABASE_URL: database.url });
        expect(unknown.code).not.toBe(0);
        expect(unknown.stderr).toMatch(/referral code/);
        // no key-encryption key on a shared store: the message, then the process ends (it used to stay alive for ever)
        const keyless = await cli(['businesses', 'create', '--name', 'No KEK', '--simulated'], { DATABASE_URL: database.url, WALLET_KEK: '', WALLET_KEK_FILE: '' }, 20_000);
        expect({ code: keyless.code, stderr: keyless.stderr.trim() }).toEqual({ code: 2, stderr: 'WALLET_KEK or WALLET_KEK_FILE is required when the store is shared' });
      } finally {
        await runner.stop();
        await opened.close();
      }
    });
  });
});
