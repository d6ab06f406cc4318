import { randomBytes } from 'node:crypto';
import { businessWithKey } from '../support/fixtures';
import { accountsAppForSuite, Browser, challenge, expectPagedList, PASSWORD, signIn, signUp } from './support';
import { SoftwareAuthenticator } from './software-authenticator';

const MINUTE = 60 * 1000;

/**
 * Passkeys and step-up over real HTTP (issue #14 points 2–3; decision 0037): the real app on the
 * embedded store, a cookie jar per browser, a software authenticator (ES256, attestation none)
 * answering the service's WebAuthn options as a browser would, and the accounts clock moved by
 * the test (never slept).
 */
describe('passkeys and step-up over HTTP', () => {
  const app = accountsAppForSuite({ logs: false });

  const browser = () => new Browser(app.api);

  /** A signed-up person, stepped up with the password, with `n` passkeys on `authenticator`. */
  async function personWithPasskeys(n: number, authenticator = new SoftwareAuthenticator(app.origin)) {
    const b = browser();
    const person = await signUp(app, b);
    expect((await b.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await register(b, authenticator)).body.data.id);
    return { b, person, authenticator, ids };
  }

  async function register(b: Browser, authenticator: SoftwareAuthenticator, name?: string) {
    const options = await b.post('/me/passkeys/registration/options');
    expect(options.status).toBe(200);
    const added = await b.post('/me/passkeys', { credential: authenticator.create(options.body.data), ...(name ? { name } : {}) });
    expect(added.status).toBe(201);
    return added;
  }

  async function passkeySignIn(b: Browser, authenticator: SoftwareAuthenticator, tweak?: Parameters<SoftwareAuthenticator['get']>[2]) {
    const options = await b.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    expect(options.status).toBe(200);
    const credential = authenticator.get(options.body.data, undefined, tweak);
    return { credential, result: await b.post('/passkeys/authentication/verify', { credential }) };
  }

  it('adds a passkey after a step-up: options for a discoverable credential, verified registration, listed; a sign-up’s session needs the step-up first', async () => {
    const b = browser();
    const { account } = await signUp(app, b);
    const refused = await b.post('/me/passkeys/registration/options');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'step_up_required']);

    const wrong = await b.post('/sessions/current/step-up', { current_password: 'not the password' });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.field]).toEqual([400, 'invalid_credentials', 'current_password']);
    const stepped = await b.post('/sessions/current/step-up', { current_password: PASSWORD });
    expect([stepped.status, stepped.body.data.kind, stepped.body.data.method]).toEqual([200, 'step_up', 'password']);
    expect(Date.parse(stepped.body.data.expires_at) - app.clock.now().getTime()).toBeGreaterThan(14 * MINUTE);

    const options = await b.post('/me/passkeys/registration/options');
    expect(options.status).toBe(200);
    expect(options.body.data).toMatchObject({
      rp: { id: new URL(app.origin).hostname },
      user: { id: Buffer.from(account.id).toString('base64url'), name: account.email },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: [],
    });
    const authenticator = new SoftwareAuthenticator(app.origin);
    const added = await b.post('/me/passkeys', { credential: authenticator.create(options.body.data), name: ' Laptop ' });
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({
      kind: 'passkey',
      id: expect.stringMatching(/^pky_/),
      name: 'Laptop',
      transports: ['internal', 'hybrid'],
      device_type: 'singleDevice',
      backed_up: false,
      created_at: expect.any(String),
      last_used_at: null,
    });
    const list = await b.get('/me/passkeys');
    expect([list.status, list.body.data, list.body.has_more]).toEqual([200, [added.body.data], false]);

    // the challenge was single use: the same answer again finds none
    const replay = await b.post('/me/passkeys', { credential: authenticator.create(options.body.data, authenticator.credentials[0]) });
    expect([replay.status, replay.body.error.code]).toEqual([400, 'passkey_failed']);
    // the next options exclude it
    const next = await b.post('/me/passkeys/registration/options');
    expect(next.body.data.excludeCredentials).toEqual([{ id: authenticator.credentials[0].id.toString('base64url'), type: 'public-key', transports: ['internal', 'hybrid'] }]);
  });

  it('pages GET /me/passkeys as every list (audit 2026-11-29, F2): oldest first, limit 1 to 100, a cursor bound to the list and the person; bad limits, unknown parameters and foreign cursors 400 invalid_request naming the field', async () => {
    const { b, person, ids } = await personWithPasskeys(3);
    // another list's cursor (the person's two sessions) and another person's passkeys' cursor
    expect((await signIn(browser(), person.email)).status).toBe(201);
    const sessionsCursor = (await b.get('/sessions?limit=1')).body.next_cursor;
    const other = await personWithPasskeys(2);
    const theirCursor = (await other.b.get('/me/passkeys?limit=1')).body.next_cursor;
    expect([typeof sessionsCursor, typeof theirCursor]).toEqual(['string', 'string']);

    const passkeys = await expectPagedList<{ id: string }>(b, '/me/passkeys', [sessionsCursor, theirCursor]);
    expect(passkeys.map((p) => p.id)).toEqual(ids);
  });

  it('refuses a registration for another origin, without user verification, or to options of another session (400 passkey_failed)', async () => {
    const { b, authenticator } = await personWithPasskeys(0);
    const options = await b.post('/me/passkeys/registration/options');
    const phishing = new SoftwareAuthenticator('https://evil.example');
    const elsewhere = await b.post('/me/passkeys', { credential: phishing.create({ ...options.body.data, rp: { ...options.body.data.rp } }) });
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([400, 'passkey_failed']);

    authenticator.verifiesUser = false;
    const again = await b.post('/me/passkeys/registration/options');
    const noUv = await b.post('/me/passkeys', { credential: authenticator.create(again.body.data) });
    expect([noUv.status, noUv.body.error.code]).toEqual([400, 'passkey_failed']);
    authenticator.verifiesUser = true;

    // options asked in one session, answered in another of the same person
    const other = browser();
    expect((await signIn(other, (await b.get('/me')).body.data.email)).status).toBe(201);
    const mine = await b.post('/me/passkeys/registration/options');
    const crossed = await other.post('/me/passkeys', { credential: authenticator.create(mine.body.data) });
    expect([crossed.status, crossed.body.error.code]).toEqual([400, 'passkey_failed']);
    expect((await b.get('/me/passkeys')).body.data).toEqual([]);
  });

  it('a credential already on an account is 409 passkey_exists (this one or another); an account has at most 10 (409 passkey_limit)', async () => {
    const { b, authenticator } = await personWithPasskeys(1);
    const options = await b.post('/me/passkeys/registration/options');
    const same = await b.post('/me/passkeys', { credential: authenticator.create(options.body.data, authenticator.credentials[0]) });
    expect([same.status, same.body.error.code]).toEqual([409, 'passkey_exists']);

    const other = await personWithPasskeys(0);
    const theirs = await other.b.post('/me/passkeys/registration/options');
    const stolen = await other.b.post('/me/passkeys', { credential: authenticator.create(theirs.body.data, authenticator.credentials[0]) });
    expect([stolen.status, stolen.body.error.code]).toEqual([409, 'passkey_exists']);

    // POST /me/passkeys/registration/options and POST /me/passkeys: 20 per 10 minutes per IP together (4 used above)
    for (let i = 0; i < 8; i++) await register(b, authenticator);
    const limited = await b.post('/me/passkeys/registration/options');
    expect([limited.status, limited.body.error.code, Number(limited.headers.get('retry-after')) > 0]).toEqual([429, 'rate_limited', true]);
    // the same session from another address goes on
    const moved = new Browser(app.api);
    for (const [name, value] of b.jar) moved.jar.set(name, value);
    await register(moved, authenticator);
    expect((await moved.get('/me/passkeys')).body.data).toHaveLength(10);
    const full = await moved.post('/me/passkeys/registration/options');
    expect([full.status, full.body.error.code]).toEqual([409, 'passkey_limit']);
  });

  it('signs in with a passkey: a session with the cookies of a password sign-in; the counter recorded; replayed, unknown, tampered, other-browser, expired and old-counter answers refused', async () => {
    const { person, authenticator, ids } = await personWithPasskeys(1);
    const b = browser();
    const { credential, result } = await passkeySignIn(b, authenticator);
    expect(result.status).toBe(201);
    expect(result.body.data).toMatchObject({ kind: 'session', id: expect.stringMatching(/^ses_/), current: true, method: 'passkey' });
    expect(b.jar.has('session') && b.jar.has('device') && !b.jar.has('webauthn')).toBe(true);
    for (const line of b.setCookies) expect(line).toMatch(/; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    const me = await b.get('/me');
    expect([me.status, me.body.data.id]).toEqual([200, person.account.id]);
    const listed = (await b.get('/me/passkeys')).body.data;
    expect(listed.map((p: { id: string; last_used_at: string | null }) => [p.id, p.last_used_at !== null])).toEqual([[ids[0], true]]);

    // the same answer again: its challenge was used
    const replayed = await b.post('/passkeys/authentication/verify', { credential });
    expect([replayed.status, replayed.body.error.code]).toEqual([400, 'passkey_failed']);
    // a passkey on no account
    const stranger = new SoftwareAuthenticator(app.origin);
    stranger.create({ challenge: 'x', rp: { name: 'x' }, user: { id: 'dXNlcg', name: 'u' } });
    const unknown = await passkeySignIn(browser(), stranger);
    expect([unknown.result.status, unknown.result.body.error.code]).toEqual([400, 'passkey_unknown']);
    // a signature that does not verify
    const c = browser();
    const options = await c.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    const tampered = authenticator.get(options.body.data);
    tampered.response.signature = Buffer.from(randomBytes(70)).toString('base64url');
    const bad = await c.post('/passkeys/authentication/verify', { credential: tampered });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'passkey_failed']);
    // options asked in one browser, answered from another (no webauthn cookie there)
    const asker = browser();
    const asked = await asker.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    const elsewhere = await browser().post('/passkeys/authentication/verify', { credential: authenticator.get(asked.body.data) });
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([400, 'passkey_failed']);
    // older than five minutes
    const late = browser();
    const old = await late.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    app.clock.advance(5 * MINUTE + 1000);
    const expired = await late.post('/passkeys/authentication/verify', { credential: authenticator.get(old.body.data) });
    expect([expired.status, expired.body.error.code]).toEqual([400, 'passkey_failed']);
    // a counter that did not grow past the one recorded at the last sign-in (a cloned authenticator)
    const cloned = await passkeySignIn(browser(), authenticator, { counter: 1 });
    expect([cloned.result.status, cloned.result.body.error.code]).toEqual([400, 'passkey_failed']);
    // another origin
    const phished = await passkeySignIn(browser(), authenticator, { origin: 'https://evil.example' });
    expect([phished.result.status, phished.result.body.error.code]).toEqual([400, 'passkey_failed']);
    // a user handle naming another person
    const d = browser();
    const dOptions = await d.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    const impostor = authenticator.get(dOptions.body.data);
    impostor.response.userHandle = Buffer.from('acc_someoneelse').toString('base64url');
    const wrongPerson = await d.post('/passkeys/authentication/verify', { credential: impostor });
    expect([wrongPerson.status, wrongPerson.body.error.code]).toEqual([400, 'passkey_failed']);
    // and the real one still works, its counter going on
    const fine = await passkeySignIn(browser(), authenticator);
    expect(fine.result.status).toBe(201);
  });

  it('passkey sign-in options need the bot challenge (400 challenge_failed) and refuse another site (403 cross_site_request)', async () => {
    const bare = await browser().post('/passkeys/authentication/options');
    expect([bare.status, bare.body.error.code, bare.body.error.field]).toEqual([400, 'challenge_failed', 'Service-Challenge']);
    const evil = new Browser(app.api, 'https://evil.example');
    const options = await evil.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    expect([options.status, options.body.error.code]).toEqual([403, 'cross_site_request']);
  });

  it('steps up with a passkey; another person’s passkey is 400 passkey_unknown; without passkeys 409 no_passkeys', async () => {
    const { b, authenticator } = await personWithPasskeys(1);
    const options = await b.post('/sessions/current/step-up/options');
    expect(options.status).toBe(200);
    expect(options.body.data).toMatchObject({ rpId: new URL(app.origin).hostname, userVerification: 'required', allowCredentials: [{ id: authenticator.credentials[0].id.toString('base64url') }] });
    const stepped = await b.post('/sessions/current/step-up', { credential: authenticator.get(options.body.data) });
    expect([stepped.status, stepped.body.data.method]).toEqual([200, 'passkey']);

    const other = await personWithPasskeys(1);
    const mine = await b.post('/sessions/current/step-up/options');
    const foreign = await b.post('/sessions/current/step-up', { credential: other.authenticator.get({ challenge: mine.body.data.challenge, rpId: mine.body.data.rpId }) });
    expect([foreign.status, foreign.body.error.code]).toEqual([400, 'passkey_unknown']);

    const none = browser();
    await signUp(app, none);
    const refused = await none.post('/sessions/current/step-up/options');
    expect([refused.status, refused.body.error.code]).toEqual([409, 'no_passkeys']);
    const both = await none.post('/sessions/current/step-up', { current_password: PASSWORD, credential: authenticator.get(options.body.data) });
    expect([both.status, both.body.error.code]).toEqual([400, 'invalid_request']);
    const neither = await none.post('/sessions/current/step-up', {});
    expect([neither.status, neither.body.error.code]).toEqual([400, 'invalid_request']);
  });

  it('a step-up holds 15 minutes (403 step_up_required after); a password or passkey sign-in counts as one for its first 15 minutes', async () => {
    const { b, person, authenticator, ids } = await personWithPasskeys(2);
    app.clock.advance(15 * MINUTE);
    const late = await b.delete(`/me/passkeys/${ids[1]}`);
    expect([late.status, late.body.error.code]).toEqual([403, 'step_up_required']);
    expect((await b.post('/me/passkeys/registration/options')).body.error.code).toBe('step_up_required');
    expect((await b.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const removed = await b.delete(`/me/passkeys/${ids[1]}`);
    expect([removed.status, removed.body.data.id]).toEqual([200, ids[1]]);
    expect((await b.get('/me/passkeys')).body.data.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    const gone = await b.delete(`/me/passkeys/${ids[1]}`);
    expect([gone.status, gone.body.error.code]).toEqual([404, 'not_found']);

    // a fresh password sign-in is a proof for 15 minutes
    const p = browser();
    expect((await signIn(p, person.email)).status).toBe(201);
    expect((await p.post('/me/passkeys/registration/options')).status).toBe(200);
    // a passkey sign-in too
    const k = browser();
    expect((await passkeySignIn(k, authenticator)).result.status).toBe(201);
    expect((await k.post('/me/passkeys/registration/options')).status).toBe(200);
    app.clock.advance(15 * MINUTE);
    expect((await p.post('/me/passkeys/registration/options')).body.error.code).toBe('step_up_required');
    expect((await k.post('/me/passkeys/registration/options')).body.error.code).toBe('step_up_required');
    // another person's passkey id reads as none
    const stranger = await personWithPasskeys(1);
    const foreign = await stranger.b.delete(`/me/passkeys/${ids[0]}`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
  });

  it('wrong step-up passwords climb the session’s own ladder (5 → 429 too_many_attempts with Retry-After)', async () => {
    const b = browser();
    await signUp(app, b);
    for (let i = 0; i < 5; i++) expect((await b.post('/sessions/current/step-up', { current_password: `wrong ${i}` })).body.error.code).toBe('invalid_credentials');
    const locked = await b.post('/sessions/current/step-up', { current_password: PASSWORD });
    expect([locked.status, locked.body.error.code]).toEqual([429, 'too_many_attempts']);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    app.clock.advance(MINUTE + 1000);
    expect((await b.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
  });

  it('API keys get 403 session_required on the person’s passkey and step-up routes; no session is 401', async () => {
    const { client } = await businessWithKey(app.api, true);
    for (const [method, path] of [['GET', '/me/passkeys'], ['POST', '/me/passkeys/registration/options'], ['POST', '/sessions/current/step-up/options'], ['DELETE', '/me/passkeys/pky_x']] as const) {
      const refused = method === 'GET' ? await client.get(path) : method === 'POST' ? await client.post(path, {}) : await client.call('DELETE', path);
      expect([path, refused.status, refused.body.error.code]).toEqual([path, 403, 'session_required']);
    }
    const anonymous = await browser().post('/me/passkeys/registration/options');
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'unauthenticated']);
    const stepUp = await browser().post('/sessions/current/step-up', { current_password: PASSWORD });
    expect([stepUp.status, stepUp.body.error.code]).toEqual([401, 'unauthenticated']);
  });

  it('answers malformed bodies of the new POST routes with 4xx, never 5xx', async () => {
    const { b, authenticator } = await personWithPasskeys(1);
    const options = await b.post('/sessions/current/step-up/options');
    const good = authenticator.get(options.body.data);
    const bodies: unknown[] = [
      null,
      [],
      'x',
      42,
      {},
      { credential: null },
      { credential: 'x' },
      { credential: [] },
      { credential: { id: 'x' } },
      { credential: { ...good, response: null } },
      { credential: { ...good, type: 'other' } },
      { credential: { ...good, id: '!!' } },
      { credential: { ...good, response: { ...good.response, authenticatorData: 'AAAA' } } },
      { credential: { ...good, response: { ...good.response, clientDataJSON: Buffer.from('{not json').toString('base64url') } } },
      { credential: { ...good, response: { ...good.response, clientDataJSON: Buffer.from('[]').toString('base64url') } } },
      { credential: { ...good, response: { ...good.response, attestationObject: 'oWNmbXRkbm9uZQ' } } },
      { credential: { ...good, clientExtensionResults: 'x' } },
      { credential: { ...good, response: { ...good.response, transports: 'usb' } } },
      { name: 'x'.repeat(101), credential: good },
      { name: '', credential: good },
      { current_password: 5 },
      { current_password: '' },
    ];
    for (const path of ['/me/passkeys', '/passkeys/authentication/verify', '/sessions/current/step-up', '/me/passkeys/registration/options', '/passkeys/authentication/options', '/sessions/current/step-up/options']) {
      for (const body of bodies) {
        if (path.endsWith('/options')) await b.post(path.startsWith('/passkeys') ? path : path, undefined);
        else if (path === '/me/passkeys') await b.post('/me/passkeys/registration/options');
        else if (path === '/passkeys/authentication/verify') await b.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
        else await b.post('/sessions/current/step-up/options');
        const answer = await b.call('POST', path, body);
        expect({ path, body, status: answer.status < 500 }).toEqual({ path, body, status: true });
      }
    }
  });
});
