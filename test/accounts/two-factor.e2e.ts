import { generate } from 'otplib';
import { testChallengeToken } from '@lib/challenge';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { businessWithKey } from '../support/fixtures';
import { eventually } from '../support/eventually';
import { linkIn } from '../support/smtp';
import { buildCorpus, HttpCase } from '../api/fuzz-corpus';
import { accountsAppForSuite, Browser, PASSWORD, signIn, signUp } from './support';

const MINUTE = 60_000;
const NEW_PASSWORD = 'a brand new passphrase 42';

/**
 * Two-step sign-in over real HTTP (issue #14; decision 0036) on the real app and embedded
 * store: setup, turning on and off, sign-in with a TOTP code or a recovery code, challenge
 * expiry, the lock after 5 wrong codes — with a cookie jar per browser, a real SMTP server for
 * sign-up, TOTP codes computed here with otplib at the accounts clock, which the test moves
 * (never sleeps).
 */
describe('two-step sign-in over HTTP', () => {
  const app = accountsAppForSuite();
  const logs = app.logs;
  /** Long secrets (TOTP secrets, otpauth URIs, recovery codes, challenge ids): never in a log line or an event, as substrings. */
  const SECRETS: string[] = [PASSWORD];
  /** 6-digit codes: never in a log line or an event as a whole token. */
  const CODES: string[] = [];

  const browser = (origin?: string | null) => new Browser(app.api, origin);
  const epoch = () => Math.floor(app.clock.now().getTime() / 1000);
  /** The code the authenticator app shows now. */
  const codeNow = async (secret: string) => {
    const code = await generate({ secret, epoch: epoch() });
    CODES.push(code);
    return code;
  };
  /** The next step's code (the clock moved 30 seconds: a code of a step already used never passes again). */
  const nextCode = async (secret: string) => {
    app.clock.advance(30_000);
    return codeNow(secret);
  };
  /** A 6-digit code that matches none of the steps the server accepts now. */
  const wrongCode = async (secret: string) => {
    const near = await Promise.all([-60, -30, 0, 30, 60].map((d) => generate({ secret, epoch: epoch() + d })));
    let n = 123456;
    while (near.includes(String(n).padStart(6, '0'))) n++;
    return String(n).padStart(6, '0');
  };

  /** Signs up and turns two-step sign-in on in `b`: the person's e-mail, the secret, the recovery codes. */
  async function withTwoFactor(b = browser()) {
    const person = await signUp(app, b);
    const setup = await b.post('/me/two-factor/setup');
    if (setup.status !== 201) throw new Error(`setup: ${setup.status} ${JSON.stringify(setup.body)}`);
    const secret = setup.body.data.secret as string;
    SECRETS.push(secret, setup.body.data.otpauth_uri);
    const enabled = await b.post('/me/two-factor', { code: await codeNow(secret), current_password: PASSWORD });
    if (enabled.status !== 200) throw new Error(`enable: ${enabled.status} ${JSON.stringify(enabled.body)}`);
    const recoveryCodes = enabled.body.data.recovery_codes as string[];
    SECRETS.push(...recoveryCodes, ...recoveryCodes.map((c) => c.replace(/-/g, '')));
    return { ...person, browser: b, secret, recoveryCodes };
  }

  /** POST /sessions for a person with two-step sign-in on: the challenge. */
  async function challenge(b: Browser, email: string) {
    const answer = await signIn(b, email);
    expect([answer.status, answer.body.data?.kind]).toEqual([200, 'two_factor_challenge']);
    SECRETS.push(answer.body.data.id);
    return answer.body.data.id as string;
  }

  it('sets up and turns on: setup in this session, QR valid 10 minutes, the current password, a right code; the recovery codes once (secret and codes Cache-Control: no-store)', async () => {
    const b = browser();
    const { email, account } = await signUp(app, b);
    const off = await b.get('/me/two-factor');
    expect([off.status, off.body.data]).toEqual([200, { kind: 'two_factor', enabled: false, enabled_at: null, recovery_codes_remaining: 0 }]);
    const noSetup = await b.post('/me/two-factor', { code: '123456', current_password: PASSWORD });
    expect([noSetup.status, noSetup.body.error.code]).toEqual([409, 'two_factor_setup_required']);

    const before = app.clock.now().getTime();
    const setup = await b.post('/me/two-factor/setup');
    expect(setup.status).toBe(201);
    const { secret, otpauth_uri: uri, qr_code: qr, expires_at: expiresAt } = setup.body.data;
    SECRETS.push(secret, uri);
    expect(setup.headers.get('cache-control')).toBe('no-store'); // the secret shown once: no cache keeps it (audit F6)
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const parsed = new URL(uri);
    expect([parsed.protocol, parsed.host, decodeURIComponent(parsed.pathname), parsed.searchParams.get('secret'), parsed.searchParams.get('issuer')]).toEqual(['otpauth:', 'totp', `/Payments:${email}`, secret, 'Payments']);
    expect(qr).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(qr.split(',')[1], 'base64').toString('utf8')).toContain('<svg');
    expect(Date.parse(expiresAt) - before).toBeGreaterThanOrEqual(10 * MINUTE - 1000);
    expect(Date.parse(expiresAt) - before).toBeLessThanOrEqual(10 * MINUTE + 5000);

    // not this session's setup: another browser of the same person
    const elsewhere = browser();
    expect((await signIn(elsewhere, email)).status).toBe(201);
    const otherSession = await elsewhere.post('/me/two-factor', { code: await codeNow(secret), current_password: PASSWORD });
    expect([otherSession.status, otherSession.body.error.code]).toEqual([409, 'two_factor_setup_required']);

    const wrongPassword = await b.post('/me/two-factor', { code: await codeNow(secret), current_password: 'not my password' });
    expect([wrongPassword.status, wrongPassword.body.error.code, wrongPassword.body.error.field]).toEqual([400, 'invalid_credentials', 'current_password']);
    const wrong = await b.post('/me/two-factor', { code: await wrongCode(secret), current_password: PASSWORD });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.field]).toEqual([400, 'invalid_code', 'code']);
    const malformed = await b.post('/me/two-factor', { code: '12ab56', current_password: PASSWORD });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'invalid_code']);

    // the QR code is valid 10 minutes
    app.clock.advance(10 * MINUTE);
    const stale = await b.post('/me/two-factor', { code: await codeNow(secret), current_password: PASSWORD });
    expect([stale.status, stale.body.error.code]).toEqual([409, 'two_factor_setup_required']);

    const again = await b.post('/me/two-factor/setup');
    expect(again.status).toBe(201);
    const fresh = again.body.data.secret as string;
    SECRETS.push(fresh, again.body.data.otpauth_uri);
    expect(fresh).not.toBe(secret);
    const code = await codeNow(fresh);
    const enabled = await b.post('/me/two-factor', { code: `${code.slice(0, 3)} ${code.slice(3)}`, current_password: PASSWORD });
    expect(enabled.status).toBe(200);
    expect(enabled.headers.get('cache-control')).toBe('no-store'); // the recovery codes, shown once
    const { recovery_codes: recoveryCodes, ...view } = enabled.body.data;
    SECRETS.push(...recoveryCodes);
    expect(view).toEqual({ kind: 'two_factor', enabled: true, enabled_at: expect.any(String), recovery_codes_remaining: 10 });
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const c of recoveryCodes) expect(c).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);

    const on = await b.get('/me/two-factor');
    expect([on.status, on.body.data]).toEqual([200, view]);
    expect(on.headers.get('cache-control')).toBeNull();
    const setupWhenOn = await b.post('/me/two-factor/setup');
    expect([setupWhenOn.status, setupWhenOn.body.error.code]).toEqual([409, 'two_factor_enabled']);
    const enableWhenOn = await b.post('/me/two-factor', { code: await nextCode(fresh), current_password: PASSWORD });
    expect([enableWhenOn.status, enableWhenOn.body.error.code]).toEqual([409, 'two_factor_enabled']);

    // the secret is sealed at rest: the vault's row holds no clear text
    const db = app.api.app.get<Sql>(DATABASE);
    const { rows } = await db.query<{ ciphertext: Uint8Array; account_id: string }>(`SELECT account_id, ciphertext FROM account_totp_secrets WHERE account_id = $1`, [account.id]);
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0].ciphertext).toString('latin1')).not.toContain(fresh);
  });

  it('counts wrong current passwords on the session’s own ladder, with /me/password (429 too_many_attempts)', async () => {
    const b = browser();
    await signUp(app, b);
    expect((await b.post('/me/two-factor/setup')).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await b.post('/me/two-factor', { code: '123456', current_password: 'not my password' })).body.error.code).toBe('invalid_credentials');
    for (let i = 0; i < 2; i++) expect((await b.post('/me/password', { current_password: 'not my password', new_password: 'a brand new passphrase' })).body.error.code).toBe('invalid_credentials');
    const locked = await b.post('/me/two-factor', { code: '123456', current_password: PASSWORD });
    expect([locked.status, locked.body.error.code, locked.headers.get('retry-after')]).toEqual([429, 'too_many_attempts', '60']);
    // another session of the person has its own count
    const other = browser();
    expect((await signIn(other, (await b.get('/me')).body.data.email)).status).toBe(201);
    expect((await other.post('/me/password', { current_password: 'not my password', new_password: 'a brand new passphrase' })).body.error.code).toBe('invalid_credentials');
  });

  it('signs in with a code: POST /sessions answers a challenge (200, no session cookie), POST /sessions/two-factor the session; a challenge once, a TOTP code once', async () => {
    const { email, secret } = await withTwoFactor();
    const b = browser();
    const started = await signIn(b, email);
    expect(started.status).toBe(200);
    expect(started.body.data).toEqual({ kind: 'two_factor_challenge', id: expect.stringMatching(/^tfc_[0-9a-f]{48}$/), expires_at: expect.any(String) });
    SECRETS.push(started.body.data.id);
    expect(Date.parse(started.body.data.expires_at) - app.clock.now().getTime()).toBeGreaterThan(5 * MINUTE - 5000);
    expect(Date.parse(started.body.data.expires_at) - app.clock.now().getTime()).toBeLessThanOrEqual(5 * MINUTE);
    expect(b.jar.has('session')).toBe(false);
    expect((await b.get('/me')).status).toBe(401);
    // a wrong password still answers as before (no challenge)
    expect((await signIn(browser(), email, 'not the password at all')).body.error.code).toBe('invalid_credentials');

    const code = await nextCode(secret);
    const done = await b.post('/sessions/two-factor', { challenge_id: started.body.data.id, code });
    expect(done.status).toBe(201);
    expect(done.body.data).toMatchObject({ kind: 'session', id: expect.stringMatching(/^ses_/), current: true, method: 'password' });
    expect(b.jar.has('session') && b.jar.has('device')).toBe(true);
    for (const line of b.setCookies) expect(line).toMatch(/; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    SECRETS.push(b.jar.get('session')!);
    const me = await b.get('/me');
    expect([me.status, me.body.data.email]).toEqual([200, email]);

    // the challenge is used
    const reused = await b.post('/sessions/two-factor', { challenge_id: started.body.data.id, code: await nextCode(secret) });
    expect([reused.status, reused.body.error.code, reused.body.error.field]).toEqual([400, 'challenge_expired', 'challenge_id']);
    // the same TOTP code (same step) on a new challenge: never twice
    const c = browser();
    const second = await challenge(c, email);
    const now = await codeNow(secret);
    expect((await c.post('/sessions/two-factor', { challenge_id: second, code: now })).status).toBe(201);
    const third = await challenge(browser(), email);
    const replay = await browser().post('/sessions/two-factor', { challenge_id: third, code: now });
    expect([replay.status, replay.body.error.code, replay.body.error.field]).toEqual([400, 'invalid_code', 'code']);
  });

  it('signs in with a recovery code, each once (used twice → invalid_code); case, spaces and dashes do not matter', async () => {
    const { email, recoveryCodes, browser: owner } = await withTwoFactor();
    const b = browser();
    const first = await b.post('/sessions/two-factor', { challenge_id: await challenge(b, email), recovery_code: recoveryCodes[0] });
    expect([first.status, first.body.data.kind]).toEqual([201, 'session']);
    const again = browser();
    const twice = await again.post('/sessions/two-factor', { challenge_id: await challenge(again, email), recovery_code: recoveryCodes[0] });
    expect([twice.status, twice.body.error.code, twice.body.error.field]).toEqual([400, 'invalid_code', 'recovery_code']);
    const loose = browser();
    const typed = recoveryCodes[1].toLowerCase().replace(/-/g, ' ');
    const second = await loose.post('/sessions/two-factor', { challenge_id: await challenge(loose, email), recovery_code: typed });
    expect(second.status).toBe(201);
    const left = await owner.get('/me/two-factor');
    expect(left.body.data.recovery_codes_remaining).toBe(8);
  });

  it('refuses an unknown, used or timed-out challenge (400 challenge_expired) and wrong, malformed or missing codes (400 invalid_code)', async () => {
    const { email, secret } = await withTwoFactor();
    const b = browser();
    const id = await challenge(b, email);
    for (const unknown of ['tfc_' + '0'.repeat(48), 'tfc_nothing', 'ses_abc', '']) {
      const answer = await b.post('/sessions/two-factor', { challenge_id: unknown, code: '123456' });
      expect([unknown, answer.status, answer.body.error.code]).toEqual([unknown, 400, 'challenge_expired']);
    }
    const cases: [Record<string, unknown>, string][] = [
      [{ code: await wrongCode(secret) }, 'code'],
      [{ code: '12345' }, 'code'],
      [{ code: 'abcdef' }, 'code'],
      [{}, 'code'],
      [{ code: '', recovery_code: '' }, 'code'],
      [{ code: '123456', recovery_code: 'AAAA-BBBB-CCCC-DDDD' }, 'code'],
      [{ recovery_code: 'short' }, 'recovery_code'],
      [{ recovery_code: 'AAAA-BBBB-CCCC-DDDD' }, 'recovery_code'],
    ];
    for (const [body, field] of cases) {
      const answer = await b.post('/sessions/two-factor', { challenge_id: id, ...body });
      expect([JSON.stringify(body), answer.status, answer.body.error.code, answer.body.error.field]).toEqual([JSON.stringify(body), 400, 'invalid_code', field]);
    }
    // two wrong codes counted so far (the malformed and missing ones cost nothing): a right code passes
    const ok = await b.post('/sessions/two-factor', { challenge_id: id, code: await nextCode(secret) });
    expect(ok.status).toBe(201);

    const late = browser();
    const timedOut = await challenge(late, email);
    app.clock.advance(5 * MINUTE);
    const expired = await late.post('/sessions/two-factor', { challenge_id: timedOut, code: await codeNow(secret) });
    expect([expired.status, expired.body.error.code]).toEqual([400, 'challenge_expired']);
  });

  it('locks codes after 5 wrong ones across the person’s challenges for 15 minutes (429 too_many_attempts, Retry-After), released by the clock', async () => {
    const { email, secret } = await withTwoFactor();
    const one = browser();
    const two = browser();
    const first = await challenge(one, email);
    const second = await challenge(two, email);
    for (let i = 0; i < 3; i++) expect((await one.post('/sessions/two-factor', { challenge_id: first, code: await wrongCode(secret) })).body.error.code).toBe('invalid_code');
    for (let i = 0; i < 2; i++) expect((await two.post('/sessions/two-factor', { challenge_id: second, recovery_code: 'AAAA-BBBB-CCCC-DDDD' })).body.error.code).toBe('invalid_code');
    const locked = await two.post('/sessions/two-factor', { challenge_id: second, code: await nextCode(secret) });
    expect([locked.status, locked.body.error.code]).toEqual([429, 'too_many_attempts']);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // every challenge of the person, and turning it off too
    const third = browser();
    const lockedToo = await third.post('/sessions/two-factor', { challenge_id: await challenge(third, email), code: await codeNow(secret) });
    expect([lockedToo.status, lockedToo.body.error.code]).toEqual([429, 'too_many_attempts']);
    // another person is not locked
    const other = await withTwoFactor();
    const free = browser();
    expect((await free.post('/sessions/two-factor', { challenge_id: await challenge(free, other.email), code: await nextCode(other.secret) })).status).toBe(201);

    app.clock.advance(15 * MINUTE);
    const later = browser();
    const released = await later.post('/sessions/two-factor', { challenge_id: await challenge(later, email), code: await nextCode(secret) });
    expect(released.status).toBe(201);
  });

  it('turns off with the current password and a code or a recovery code; off → 409 two_factor_disabled; sign-in answers a session again', async () => {
    const { email, secret, recoveryCodes, browser: b, account } = await withTwoFactor();
    const noCode = await b.post('/me/two-factor/disable', { current_password: PASSWORD });
    expect([noCode.status, noCode.body.error.code, noCode.body.error.field]).toEqual([400, 'invalid_code', 'code']);
    const wrongPassword = await b.post('/me/two-factor/disable', { current_password: 'not my password', code: await nextCode(secret) });
    expect([wrongPassword.status, wrongPassword.body.error.code, wrongPassword.body.error.field]).toEqual([400, 'invalid_credentials', 'current_password']);
    const wrong = await b.post('/me/two-factor/disable', { current_password: PASSWORD, code: await wrongCode(secret) });
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'invalid_code']);
    const off = await b.post('/me/two-factor/disable', { current_password: PASSWORD, recovery_code: recoveryCodes[3] });
    expect([off.status, off.body.data]).toEqual([200, { kind: 'two_factor', enabled: false, enabled_at: null, recovery_codes_remaining: 0 }]);
    const again = await b.post('/me/two-factor/disable', { current_password: PASSWORD, code: await nextCode(secret) });
    expect([again.status, again.body.error.code]).toEqual([409, 'two_factor_disabled']);
    // the secret is gone from the vault
    const db = app.api.app.get<Sql>(DATABASE);
    expect((await db.query(`SELECT 1 FROM account_totp_secrets WHERE account_id = $1`, [account.id])).rows).toHaveLength(0);
    const session = await signIn(browser(), email);
    expect([session.status, session.body.data.kind]).toEqual([201, 'session']);

    // on again (a new setup, new recovery codes), then off with a code
    expect((await b.post('/me/two-factor/setup')).status).toBe(201);
    const setup = await b.post('/me/two-factor/setup');
    const fresh = setup.body.data.secret as string;
    SECRETS.push(fresh, setup.body.data.otpauth_uri);
    const on = await b.post('/me/two-factor', { code: await codeNow(fresh), current_password: PASSWORD });
    expect(on.status).toBe(200);
    SECRETS.push(...on.body.data.recovery_codes);
    expect(on.body.data.recovery_codes).not.toContain(recoveryCodes[0]);
    const offByCode = await b.post('/me/two-factor/disable', { current_password: PASSWORD, code: await nextCode(fresh) });
    expect([offByCode.status, offByCode.body.data.enabled]).toEqual([200, false]);
  });

  it('a challenge whose person turned two-step sign-in off meanwhile is over (challenge_expired)', async () => {
    const { email, secret, browser: owner } = await withTwoFactor();
    const b = browser();
    const id = await challenge(b, email);
    expect((await owner.post('/me/two-factor/disable', { current_password: PASSWORD, code: await nextCode(secret) })).status).toBe(200);
    const answer = await b.post('/sessions/two-factor', { challenge_id: id, code: await nextCode(secret) });
    expect([answer.status, answer.body.error.code]).toEqual([400, 'challenge_expired']);
  });

  // audit F1 (2026-11-29): the challenge proved the old password; a change or a reset of it ends the challenge as it ends the sessions
  it('a challenge taken with the password before it was changed (/me/password) is over: 400 challenge_expired, no session, the code not spent', async () => {
    const { email, secret, recoveryCodes, browser: owner } = await withTwoFactor();
    const intruder = browser();
    const id = await challenge(intruder, email);
    const changed = await owner.post('/me/password', { current_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(changed.status).toBe(200);
    const before = await owner.get('/sessions');
    for (const proof of [{ recovery_code: recoveryCodes[0] }, { code: await nextCode(secret) }]) {
      const answer = await intruder.post('/sessions/two-factor', { challenge_id: id, ...proof });
      expect([answer.status, answer.body.error.code, answer.body.error.field]).toEqual([400, 'challenge_expired', 'challenge_id']);
      expect(answer.headers.get('set-cookie')).toBeNull();
    }
    expect((await intruder.get('/me')).status).toBe(401);
    expect((await owner.get('/sessions')).body.data.map((x: { id: string }) => x.id)).toEqual(before.body.data.map((x: { id: string }) => x.id));
    // the recovery code was not spent: a challenge taken with the new password takes it
    const fresh = browser();
    const next = await signIn(fresh, email, NEW_PASSWORD);
    expect([next.status, next.body.data.kind]).toEqual([200, 'two_factor_challenge']);
    SECRETS.push(next.body.data.id);
    expect((await fresh.post('/sessions/two-factor', { challenge_id: next.body.data.id, recovery_code: recoveryCodes[0] })).status).toBe(201);
  });

  it('a challenge taken with the password before a reset is over: 400 challenge_expired, no session', async () => {
    const { email, account, secret, browser: owner } = await withTwoFactor();
    const intruder = browser();
    const id = await challenge(intruder, email);
    expect((await browser().post('/password-resets', { email }, { 'service-challenge': testChallengeToken('password_reset') })).status).toBe(202);
    const mail = await eventually(() => app.smtp.server.messages.filter((m) => m.to.includes(email.toLowerCase()) && m.subject === 'Reset your password').at(-1), { what: `the reset e-mail to ${email}` });
    const token = /#token=([A-Za-z0-9_.-]+)$/.exec(linkIn(mail))![1];
    SECRETS.push(token);
    expect((await browser().post('/password-resets/confirm', { token, new_password: NEW_PASSWORD })).status).toBe(200);
    expect((await owner.get('/me')).status).toBe(401); // the reset ended every session
    const answer = await intruder.post('/sessions/two-factor', { challenge_id: id, code: await nextCode(secret) });
    expect([answer.status, answer.body.error.code, answer.body.error.field]).toEqual([400, 'challenge_expired', 'challenge_id']);
    expect(answer.headers.get('set-cookie')).toBeNull();
    expect((await intruder.get('/me')).status).toBe(401);
    // nothing recorded for it: no code accepted, no session started since the reset
    const events = await app.api.app.get<EventStore>(EVENT_STORE).readAll();
    const mine = events.filter((e) => e.stream === `account-${account.id}`);
    const reset = mine.findIndex((e) => e.type === 'PasswordResetCompleted');
    expect(reset).toBeGreaterThan(0);
    expect(mine.slice(reset).filter((e) => e.type === 'SessionStarted' || e.type === 'TwoFactorCodeAccepted')).toEqual([]);
    // with the new password the owner signs in again
    const fresh = browser();
    const next = await signIn(fresh, email, NEW_PASSWORD);
    SECRETS.push(next.body.data.id);
    expect((await fresh.post('/sessions/two-factor', { challenge_id: next.body.data.id, code: await nextCode(secret) })).status).toBe(201);
  });

  it('keeps API keys out of /me/two-factor (403 session_required) and other sites out of both (403 cross_site_request)', async () => {
    const { client } = await businessWithKey(app.api, true);
    for (const [method, path] of [
      ['GET', '/me/two-factor'],
      ['POST', '/me/two-factor/setup'],
      ['POST', '/me/two-factor'],
      ['POST', '/me/two-factor/disable'],
    ]) {
      const answer = await client.call(method, path, method === 'POST' ? { code: '123456', current_password: PASSWORD } : undefined);
      expect([path, answer.status, answer.body.error.code]).toEqual([path, 403, 'session_required']);
    }
    const { email } = await withTwoFactor();
    const b = browser();
    const id = await challenge(b, email);
    const evil = await b.post('/sessions/two-factor', { challenge_id: id, code: '123456' }, { origin: 'https://evil.example' });
    expect([evil.status, evil.body.error.code]).toEqual([403, 'cross_site_request']);
    const setup = await b.post('/me/two-factor/setup', undefined, { 'sec-fetch-site': 'cross-site' });
    expect([setup.status, setup.body.error.code]).toEqual([401, 'unauthenticated']); // no session in this browser yet
    const signedIn = browser();
    await signUp(app, signedIn);
    const crossSite = await signedIn.post('/me/two-factor/setup', undefined, { 'sec-fetch-site': 'cross-site' });
    expect([crossSite.status, crossSite.body.error.code]).toEqual([403, 'cross_site_request']);
  });

  it('puts the second step under sessions.two_factor (30 per 10 minutes) and /me/two-factor under me.sensitive (20 per 10 minutes, with /me/password): 429 rate_limited', async () => {
    const b = browser();
    for (let i = 0; i < 30; i++) expect((await b.post('/sessions/two-factor', { challenge_id: 'tfc_none', code: '123456' })).status).toBe(400);
    const limited = await b.post('/sessions/two-factor', { challenge_id: 'tfc_none', code: '123456' });
    expect([limited.status, limited.body.error.code, Number(limited.headers.get('retry-after')) > 0]).toEqual([429, 'rate_limited', true]);

    const person = browser();
    await signUp(app, person);
    for (let i = 0; i < 10; i++) expect((await person.post('/me/password', { current_password: PASSWORD, new_password: 'short' })).status).toBe(400);
    for (let i = 0; i < 10; i++) expect((await person.post('/me/two-factor', { code: '123456', current_password: PASSWORD })).status).toBe(409);
    const sensitive = await person.post('/me/two-factor', { code: '123456', current_password: PASSWORD });
    expect([sensitive.status, sensitive.body.error.code]).toEqual([429, 'rate_limited']);
  });

  it('fuzz: malformed bodies on the new POST routes get a 4xx envelope, never a 5xx', async () => {
    const { email, browser: owner } = await withTwoFactor();
    const visitor = browser();
    const id = await challenge(visitor, email);
    const corpus = buildCorpus().filter((c): c is HttpCase => c.kind === 'http' && !c.heavy && !c.chunked);
    // the challenge route's own fields, each with every wrong type, around a valid shape
    const shapes: unknown[] = [];
    for (const field of ['challenge_id', 'code', 'recovery_code', 'current_password', '__proto__', 'constructor']) {
      for (const value of [null, 1, -1.5, true, [], {}, ['123456'], { a: 1 }, 'x'.repeat(10_000), '\u0000', '١٢٣٤٥٦', '12345\u200b6', '😀😀😀😀😀😀']) {
        shapes.push({ challenge_id: id, code: '123456', current_password: PASSWORD, [field]: value });
      }
    }
    const bodies: { body: Buffer; contentType?: string | null }[] = [
      ...corpus.map((c) => ({ body: c.body, contentType: c.contentType })),
      ...shapes.map((s) => ({ body: Buffer.from(JSON.stringify(s)) })),
    ];
    const routes = ['/sessions/two-factor', '/me/two-factor', '/me/two-factor/disable', '/me/two-factor/setup'];
    const problems: string[] = [];
    const jobs = routes.flatMap((route) => bodies.map((b) => ({ route, ...b })));
    let n = 0;
    const send = async ({ route, body, contentType }: (typeof jobs)[number]) => {
      const i = ++n;
      // a new client address each time: the per-IP rules would otherwise answer most of them 429 before the body is read
      const response = await fetch(`${app.api.base}${route}`, {
        method: 'POST',
        headers: {
          'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
          cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(contentType === null ? {} : { 'content-type': contentType ?? 'application/json' }),
        },
        body,
      });
      const text = await response.text();
      let code: unknown = null;
      try {
        code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
      } catch {
        /* not JSON */
      }
      const setupTaken = route === '/me/two-factor/setup' && response.status === 409 && code === 'two_factor_enabled';
      if (!setupTaken && (response.status < 400 || response.status >= 500 || typeof code !== 'string')) problems.push(`${route} ${body.subarray(0, 80).toString('latin1')}: ${response.status} ${text.slice(0, 200)}`);
    };
    // four at a time (the machine is shared; the point is every body, not load)
    for (let at = 0; at < jobs.length; at += 4) await Promise.all(jobs.slice(at, at + 4).map(send));
    expect(problems).toEqual([]);
    expect(n).toBeGreaterThan(400);
    // still on, still answering
    expect((await owner.get('/me/two-factor')).body.data.enabled).toBe(true);
  }, 240_000);

  it('never writes a TOTP secret, a code, a recovery code or a challenge id to the logs or to any event', async () => {
    const events = await app.api.app.get<EventStore>(EVENT_STORE).readAll();
    expect(events.some((e) => e.type === 'TwoFactorEnabled') && events.some((e) => e.type === 'TwoFactorCodeAccepted') && events.some((e) => e.type === 'TwoFactorChallengeStarted')).toBe(true);
    const log = JSON.stringify(events.map((e) => ({ stream: e.stream, type: e.type, data: e.data, metadata: e.metadata })));
    const text = logs.join('');
    expect(text.length).toBeGreaterThan(0);
    expect(SECRETS.length).toBeGreaterThan(30);
    for (const secret of SECRETS) {
      expect([secret, log.includes(secret)]).toEqual([secret, false]);
      expect([secret, text.includes(secret)]).toEqual([secret, false]);
    }
    const token = (code: string) => new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`);
    for (const code of new Set(CODES)) {
      expect([code, token(code).test(log)]).toEqual([code, false]);
      expect([code, token(code).test(text)]).toEqual([code, false]);
    }
  });
});
