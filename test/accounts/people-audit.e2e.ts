import { generate } from 'otplib';
import { testChallengeToken } from '@lib/challenge';
import { accountsProjector, passkeysProjector } from '@lib/accounts';
import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { rebuildProjection, verifyProjection } from '@lib/projections';
import { eventually } from '../support/eventually';
import { codeIn, linkIn } from '../support/smtp';
import { accountsAppForSuite, Browser, PASSWORD, challenge, newEmail, signIn, signUp } from './support';
import { SoftwareAuthenticator } from './software-authenticator';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * An outside-in audit of the people side (spec §5, §7, §8; decisions 0032–0038), written as an
 * independent client would: exact envelopes and codes for malformed bodies, one person never
 * reaching another's sessions or passkeys, the cross-site rule and bot challenges of every public
 * route, the per-IP rules that share a budget, the lifetimes of codes, links, challenges, step-ups
 * and sessions on the injected clock, and the limits under concurrent requests.
 */
describe('people audit over HTTP', () => {
  const app = accountsAppForSuite();
  const fresh = (origin?: string | null) => new Browser(app.api, origin);
  const answer = (r: { status: number; body: any }) => [r.status, r.body?.error?.code ?? r.body?.data?.kind ?? null];
  const epoch = () => Math.floor(app.clock.now().getTime() / 1000);
  const mailTo = (to: string, subject: RegExp, after = 0) =>
    eventually(() => app.smtp.server.messages.slice(after).filter((m) => m.to.includes(to.toLowerCase()) && subject.test(m.subject)).at(-1), { what: `an e-mail to ${to} (${subject})` });
  const tokenIn = (link: string) => /#token=([A-Za-z0-9_.-]+)$/.exec(link)![1];

  it('answers every malformed body of the people routes 400 invalid_request (an over-long new password: weak_password) in the §7 envelope, request_id = Service-Request-Id, and changes nothing', async () => {
    const owner = fresh();
    const person = await signUp(app, owner);
    expect((await owner.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const store = app.api.app.get<EventStore>(EVENT_STORE);
    const before = (await store.readStream(`account-${person.account.id}`)).length;
    const routes: [string, Record<string, unknown>, ('sign_up' | 'sign_in' | 'password_reset')?][] = [
      ['/accounts', { email: newEmail(), password: PASSWORD, business_name: 'X' }, 'sign_up'],
      ['/accounts/verify', { signup_id: 'sgn_x', code: '123456' }],
      ['/accounts/verify/resend', { signup_id: 'sgn_x' }],
      ['/accounts/passkey-options', { signup_id: 'sgn_x' }],
      ['/sessions', { email: person.email, password: 'wrong password 1234' }, 'sign_in'],
      ['/sessions/two-factor', { challenge_id: 'tfc_x', code: '123456' }],
      ['/me/password', { current_password: 'wrong password x', new_password: 'another good passphrase' }],
      ['/me/two-factor/setup', {}],
      ['/me/two-factor', { code: '123456', current_password: 'wrong pw 123456' }],
      ['/me/two-factor/disable', { code: '123456', current_password: 'wrong pw 123456' }],
      ['/me/email', { email: newEmail(), current_password: 'wrong pw 123456' }],
      ['/me/email/verify', { code: '123456' }],
      ['/password-resets', { email: person.email }, 'password_reset'],
      ['/password-resets/check', { token: 'acc_x.y' }],
      ['/password-resets/confirm', { token: 'acc_x.y', new_password: 'another good passphrase' }],
      ['/email-changes/undo', { token: 'acc_x.y' }],
      ['/passkeys/authentication/options', {}, 'sign_in'],
      ['/passkeys/authentication/verify', { credential: {} }],
      ['/me/passkeys/registration/options', {}],
      ['/me/passkeys', { credential: {} }],
      ['/sessions/current/step-up/options', {}],
      ['/sessions/current/step-up', { current_password: 'wrong pw 1234567' }],
    ];
    const problems: string[] = [];
    let n = 0;
    // a new password longer than 256 code points breaks the length rule: 400 weak_password on its field (spec §7; audit F3, decision 0033 addendum)
    const NEW_PASSWORDS = ['/accounts password', '/me/password new_password', '/password-resets/confirm new_password'];
    for (const [route, base, form] of routes) {
      const variants: [string, string, string?][] = [
        ['null', 'null'],
        ['array', '[]'],
        ['string', '"x"'],
        ['number', '1'],
        ['unknown field', JSON.stringify({ ...base, unknown_field: 1 })],
      ];
      for (const field of Object.keys(base)) {
        for (const value of [null, 1, true, [], {}, 'x'.repeat(100_000)]) {
          const overLong = typeof value === 'string' && NEW_PASSWORDS.includes(`${route} ${field}`);
          variants.push([`${field}=${JSON.stringify(value).slice(0, 8)}`, JSON.stringify({ ...base, [field]: value }), overLong ? field : undefined]);
        }
      }
      for (const [what, body, weakField] of variants) {
        const i = ++n;
        // a new client address each time: the per-IP rules would otherwise answer 429 before the body is read
        const response = await fetch(`${app.api.base}${route}`, {
          method: 'POST',
          headers: {
            'x-forwarded-for': `10.77.${(i >> 8) & 255}.${i & 255}`,
            'content-type': 'application/json',
            cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; '),
            ...(form ? { 'service-challenge': testChallengeToken(form) } : {}),
          },
          body,
        });
        const text = await response.text();
        let error: { code?: unknown; request_id?: unknown; field?: unknown; message?: unknown } | undefined;
        try {
          error = (JSON.parse(text) as { error?: typeof error }).error;
        } catch {
          /* not JSON */
        }
        const code = weakField === undefined ? 'invalid_request' : 'weak_password';
        const ok =
          response.status === 400 &&
          error?.code === code &&
          typeof error.message === 'string' &&
          (weakField === undefined ? 'field' in error : error.field === weakField) &&
          error.request_id === response.headers.get('service-request-id');
        if (!ok) problems.push(`${route} [${what}]: ${response.status} ${text.slice(0, 160)}`);
      }
    }
    expect(problems).toEqual([]);
    expect(n).toBeGreaterThan(250);
    expect((await store.readStream(`account-${person.account.id}`)).length).toBe(before);
    expect((await owner.get('/me')).status).toBe(200);
    expect((await signIn(fresh(), person.email)).status).toBe(201);
  }, 240_000);

  it('keeps one person from another’s sessions, passkeys and businesses: 404 not_found / 403 business_forbidden, nothing ended', async () => {
    const ann = fresh();
    const bob = fresh();
    await signUp(app, ann);
    const pb = await signUp(app, bob);
    expect((await ann.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    expect((await bob.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const authenticator = new SoftwareAuthenticator(app.origin);
    const options = await bob.post('/me/passkeys/registration/options');
    const passkey = await bob.post('/me/passkeys', { credential: authenticator.create(options.body.data) });
    expect(passkey.status).toBe(201);
    const bobSession = (await bob.get('/sessions')).body.data[0].id as string;

    for (const path of [`/sessions/${bobSession}`, `/me/passkeys/${passkey.body.data.id}`, '/sessions/ses_unknown', '/me/passkeys/pky_unknown', `/sessions/${'s'.repeat(3000)}`]) {
      const r = await ann.delete(path);
      expect([path.slice(0, 40), r.status, r.body.error.code, r.body.error.request_id]).toEqual([path.slice(0, 40), 404, 'not_found', r.headers.get('service-request-id')]);
    }
    expect((await ann.get('/me/passkeys')).body.data).toEqual([]);
    expect((await ann.get('/sessions')).body.data.map((s: { id: string }) => s.id)).not.toContain(bobSession);
    expect(answer(await ann.get('/business', { 'service-business': pb.businessId }))).toEqual([403, 'business_forbidden']);
    // Bob's session and passkey are untouched
    expect((await bob.get('/me')).status).toBe(200);
    expect((await bob.get('/me/passkeys')).body.data.map((p: { id: string }) => p.id)).toEqual([passkey.body.data.id]);
  });

  it('sign-out clears the cookie and ends the session at once; cookies are HttpOnly, SameSite=Strict, Path=/', async () => {
    const { email } = await signUp(app, fresh());
    const b = fresh();
    expect((await signIn(b, email)).status).toBe(201);
    for (const line of b.setCookies) expect(line).toMatch(/; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    const copy = fresh();
    for (const [k, v] of b.jar) copy.jar.set(k, v);
    const out = await b.delete('/sessions/current');
    expect([out.status, out.body.data.kind, out.body.data.current]).toEqual([200, 'session', true]);
    expect(b.setCookies).toEqual(['session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict']);
    expect(answer(await copy.get('/me'))).toEqual([401, 'unauthenticated']);
    expect(answer(await b.delete('/sessions/current'))).toEqual([401, 'unauthenticated']);
  });

  it('refuses every public people route from another site (403 cross_site_request) and asks sign-up, sign-in and reset for their own bot challenge', async () => {
    const { email } = await signUp(app, fresh());
    const routes: [string, unknown, Record<string, string>][] = [
      ['/accounts', { email: newEmail(), password: PASSWORD, business_name: 'X' }, { 'service-challenge': testChallengeToken('sign_up') }],
      ['/accounts/verify', { signup_id: 'sgn_x', code: '123456' }, {}],
      ['/accounts/verify/resend', { signup_id: 'sgn_x' }, {}],
      ['/accounts/passkey-options', { signup_id: 'sgn_x' }, {}],
      ['/sessions', { email, password: PASSWORD }, { 'service-challenge': testChallengeToken('sign_in') }],
      ['/sessions/two-factor', { challenge_id: 'tfc_x', code: '123456' }, {}],
      ['/password-resets', { email }, { 'service-challenge': testChallengeToken('password_reset') }],
      ['/password-resets/check', { token: 'acc_x.y' }, {}],
      ['/password-resets/confirm', { token: 'acc_x.y', new_password: 'a good new passphrase' }, {}],
      ['/email-changes/undo', { token: 'acc_x.y' }, {}],
      ['/passkeys/authentication/options', undefined, { 'service-challenge': testChallengeToken('sign_in') }],
      ['/passkeys/authentication/verify', { credential: {} }, {}],
    ];
    for (const [path, body, headers] of routes) {
      expect([path, ...answer(await fresh().post(path, body, { ...headers, 'sec-fetch-site': 'cross-site' }))]).toEqual([path, 403, 'cross_site_request']);
      expect([path, ...answer(await fresh('https://evil.example').post(path, body, headers))]).toEqual([path, 403, 'cross_site_request']);
    }
    for (const [path, body, form, other] of [
      ['/accounts', { email: newEmail(), password: PASSWORD, business_name: 'X' }, 'sign_up', 'sign_in'],
      ['/sessions', { email, password: PASSWORD }, 'sign_in', 'password_reset'],
      ['/password-resets', { email }, 'password_reset', 'sign_up'],
      ['/passkeys/authentication/options', undefined, 'sign_in', 'sign_up'],
    ] as const) {
      const missing = await fresh().post(path, body);
      expect([path, missing.status, missing.body.error.code, missing.body.error.field]).toEqual([path, 400, 'challenge_failed', 'Service-Challenge']);
      expect([path, ...answer(await fresh().post(path, body, { 'service-challenge': testChallengeToken(other) }))]).toEqual([path, 400, 'challenge_failed']);
      const token = testChallengeToken(form);
      expect((await fresh().post(path, body, { 'service-challenge': token })).status).toBeLessThan(300);
      expect([path, ...answer(await fresh().post(path, body, { 'service-challenge': token }))]).toEqual([path, 400, 'challenge_failed']);
    }
  });

  it('shares the per-IP budgets of §8 as the table groups them (429 rate_limited with Retry-After)', async () => {
    const spend = async (b: Browser, calls: (() => Promise<{ status: number; body: any; headers: Headers }>)[], allowed: number) => {
      const seen: unknown[] = [];
      for (let i = 0; i < allowed; i++) seen.push((await calls[i % calls.length]()).body?.error?.code);
      expect(seen).not.toContain('rate_limited');
      const over = await calls[allowed % calls.length]();
      expect([over.status, over.body.error.code, Number(over.headers.get('retry-after')) > 0]).toEqual([429, 'rate_limited', true]);
    };
    // /me/password, /me/two-factor, /sessions/current/step-up, /sessions/current/step-up/options: 20 per 10 minutes together
    const a = fresh();
    await signUp(app, a);
    await spend(a, [() => a.post('/me/password', { current_password: PASSWORD, new_password: PASSWORD }), () => a.post('/me/two-factor', { code: '123456', current_password: PASSWORD }), () => a.post('/sessions/current/step-up', { current_password: PASSWORD }), () => a.post('/sessions/current/step-up/options')], 20);
    // POST /me/passkeys/registration/options and POST /me/passkeys: 20 together
    const b = fresh();
    await signUp(app, b);
    await spend(b, [() => b.post('/me/passkeys/registration/options'), () => b.post('/me/passkeys', { credential: {} })], 20);
    // /passkeys/authentication/options and /verify: 60 together
    const c = fresh();
    await spend(c, [() => c.post('/passkeys/authentication/options', undefined, challenge('sign_in')), () => c.post('/passkeys/authentication/verify', { credential: {} })], 60);
    // /password-resets/check, /confirm, /email-changes/undo, /wallet-changes/cancel: 20 together
    const d = fresh();
    await spend(d, [() => d.post('/password-resets/check', { token: 'acc_x.y' }), () => d.post('/password-resets/confirm', { token: 'acc_x.y', new_password: 'a good new passphrase' }), () => d.post('/email-changes/undo', { token: 'acc_x.y' }), () => d.post('/wallet-changes/cancel', { token: 'acc_x.y' })], 20);
    // /accounts/verify and /verify/resend: 20 together
    const e = fresh();
    await spend(e, [() => e.post('/accounts/verify', { signup_id: 'sgn_x', code: '123456' }), () => e.post('/accounts/verify/resend', { signup_id: 'sgn_x' })], 20);
    // POST /me/email: 10 an hour
    const f = fresh();
    await signUp(app, f);
    await spend(f, [() => f.post('/me/email', { email: newEmail(), current_password: 'not the password' })], 10);
    // POST /sessions/two-factor: 30 per 10 minutes
    const g = fresh();
    await spend(g, [() => g.post('/sessions/two-factor', { challenge_id: 'tfc_x', code: '123456' })], 30);
  }, 120_000);

  it('times codes, links, challenges, step-ups and sessions on the injected clock, to the second', async () => {
    // a sign-up code: good at code_expires_at less a second, 400 code_expired a second after
    const email = newEmail();
    const b = fresh();
    const started = await b.post('/accounts', { email, password: PASSWORD, business_name: 'Clock', simulated: true }, challenge('sign_up'));
    const code = await app.smtp.code(email);
    const codeEnd = Date.parse(started.body.data.code_expires_at);
    expect(codeEnd - Date.parse(started.body.data.resend_after)).toBe(14 * MINUTE);
    app.clock.advance(codeEnd - app.clock.now().getTime() + 1000);
    const late = await b.post('/accounts/verify', { signup_id: started.body.data.id, code });
    expect([late.status, late.body.error.code, late.body.error.field]).toEqual([400, 'code_expired', 'code']);
    // a resend: 429 too_many_emails with Retry-After until a minute after the last, then a new code that works
    const resent = await b.post('/accounts/verify/resend', { signup_id: started.body.data.id });
    expect(answer(resent)).toEqual([200, 'signup']);
    app.clock.advance(Date.parse(resent.body.data.resend_after) - app.clock.now().getTime() - 2000);
    const soon = await b.post('/accounts/verify/resend', { signup_id: started.body.data.id });
    expect([...answer(soon), soon.headers.get('retry-after')]).toEqual([429, 'too_many_emails', '2']);
    const verified = await b.post('/accounts/verify', { signup_id: started.body.data.id, code: await app.smtp.code(email, 2) });
    expect(answer(verified)).toEqual([201, null]);

    // a step-up: good until expires_at, 403 step_up_required a second after
    const stepped = await b.post('/sessions/current/step-up', { current_password: PASSWORD });
    expect(Date.parse(stepped.body.data.expires_at) - app.clock.now().getTime()).toBeGreaterThan(15 * MINUTE - 5000);
    app.clock.advance(Date.parse(stepped.body.data.expires_at) - app.clock.now().getTime() - 1000);
    expect((await b.post('/me/passkeys/registration/options')).status).toBe(200);
    app.clock.advance(2000);
    expect(answer(await b.post('/me/passkeys/registration/options'))).toEqual([403, 'step_up_required']);

    // two-step: the QR code 10 minutes, the sign-in challenge 5 minutes
    const setup = await b.post('/me/two-factor/setup');
    app.clock.advance(Date.parse(setup.body.data.expires_at) - app.clock.now().getTime() + 1000);
    expect(answer(await b.post('/me/two-factor', { code: await generate({ secret: setup.body.data.secret, epoch: epoch() }), current_password: PASSWORD }))).toEqual([409, 'two_factor_setup_required']);
    const again = await b.post('/me/two-factor/setup');
    expect((await b.post('/me/two-factor', { code: await generate({ secret: again.body.data.secret, epoch: epoch() }), current_password: PASSWORD })).status).toBe(200);
    const visitor = fresh();
    const ch = await signIn(visitor, email);
    expect([ch.status, ch.body.data.kind, visitor.setCookies]).toEqual([200, 'two_factor_challenge', []]);
    app.clock.advance(Date.parse(ch.body.data.expires_at) - app.clock.now().getTime() + 1000);
    const over = await visitor.post('/sessions/two-factor', { challenge_id: ch.body.data.id, code: await generate({ secret: again.body.data.secret, epoch: epoch() }) });
    expect([over.status, over.body.error.code, over.body.error.field]).toEqual([400, 'challenge_expired', 'challenge_id']);

    // a reset link: an hour
    const mailed = app.smtp.server.messages.length;
    expect((await fresh().post('/password-resets', { email }, { 'service-challenge': testChallengeToken('password_reset') })).status).toBe(202);
    const token = tokenIn(linkIn(await mailTo(email, /./, mailed)));
    const checked = await fresh().post('/password-resets/check', { token });
    expect(Date.parse(checked.body.data.expires_at) - app.clock.now().getTime()).toBeGreaterThan(HOUR - 5000);
    app.clock.advance(Date.parse(checked.body.data.expires_at) - app.clock.now().getTime() - 1000);
    expect((await fresh().post('/password-resets/check', { token })).status).toBe(200);
    app.clock.advance(2000);
    expect(answer(await fresh().post('/password-resets/check', { token }))).toEqual([400, 'invalid_token']);
  });

  it('a session ends 12 hours after its last use, and 14 days after it started however often used', async () => {
    const b = fresh();
    await signUp(app, b);
    app.clock.advance(12 * HOUR - 1000);
    expect((await b.get('/me')).status).toBe(200);
    let ended = -1;
    for (let hours = 12; hours <= 15 * 24; hours += 11) {
      app.clock.advance(11 * HOUR);
      if ((await b.get('/me')).status === 401) {
        ended = hours + 11;
        break;
      }
    }
    expect(ended).toBeGreaterThan(14 * 24 - 11);
    expect(ended).toBeLessThanOrEqual(14 * 24 + 11);
  });

  it('an undone e-mail change keeps out whoever held the account: their passkey is removed (400 passkey_unknown), a two-step challenge asked before the undo is over (400 challenge_expired), the password answers 403 password_reset_required until a reset', async () => {
    const owner = fresh();
    const { email } = await signUp(app, owner);
    // someone who knows the password signs in, adds a passkey, turns two-step sign-in on and moves the address
    const intruder = fresh();
    expect((await signIn(intruder, email)).status).toBe(201);
    const authenticator = new SoftwareAuthenticator(app.origin);
    const options = await intruder.post('/me/passkeys/registration/options');
    expect((await intruder.post('/me/passkeys', { credential: authenticator.create(options.body.data) })).status).toBe(201);
    const setup = await intruder.post('/me/two-factor/setup');
    const secret = setup.body.data.secret as string;
    expect((await intruder.post('/me/two-factor', { code: await generate({ secret, epoch: epoch() }), current_password: PASSWORD })).status).toBe(200);
    const pending = fresh();
    const challenged = await signIn(pending, email);
    expect(answer(challenged)).toEqual([200, 'two_factor_challenge']);
    const elsewhere = newEmail('intruder');
    const mailed = app.smtp.server.messages.length;
    expect((await intruder.post('/me/email', { email: elsewhere, current_password: PASSWORD })).status).toBe(201);
    expect((await intruder.post('/me/email/verify', { code: codeIn(await mailTo(elsewhere, /./, mailed)) })).status).toBe(200);

    // the owner undoes it from the old address
    const undo = tokenIn(linkIn(await mailTo(email, /./, mailed)));
    expect(answer(await fresh().post('/email-changes/undo', { token: undo }))).toEqual([200, 'email_change_undo']);
    expect(answer(await intruder.get('/me'))).toEqual([401, 'unauthenticated']);

    // the undo removed the passkey: it is on no account any more, and starts no session
    const again = fresh();
    const asked = await again.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    const byPasskey = await again.post('/passkeys/authentication/verify', { credential: authenticator.get(asked.body.data) });
    expect([...answer(byPasskey), again.jar.has('session')]).toEqual([400, 'passkey_unknown', false]);
    // and turned two-step sign-in off: the challenge asked before the undo is over, even with a right code
    app.clock.advance(30_000);
    const second = await pending.post('/sessions/two-factor', { challenge_id: challenged.body.data.id, code: await generate({ secret, epoch: epoch() }) });
    expect([...answer(second), pending.jar.has('session')]).toEqual([400, 'challenge_expired', false]);
    expect(answer(await signIn(fresh(), email))).toEqual([403, 'password_reset_required']);
  });

  it('an undone e-mail change takes away every way in the intruder added: after the reset their passkey is unknown (400 passkey_unknown) and the owner signs in with the new password without their second step; the read models say so and replay the same', async () => {
    const owner = fresh();
    const { email, account } = await signUp(app, owner);
    // the owner's own passkey, added long before anything happens: the undo cannot tell it from the intruder's
    expect((await owner.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const ownerKey = new SoftwareAuthenticator(app.origin);
    expect((await owner.post('/me/passkeys', { credential: ownerKey.create((await owner.post('/me/passkeys/registration/options')).body.data) })).status).toBe(201);
    app.clock.advance(3 * 24 * HOUR); // the owner's session goes idle

    // the intruder signs in with the password, adds a passkey, turns two-step sign-in on — all before starting the e-mail change
    const intruder = fresh();
    expect((await signIn(intruder, email)).status).toBe(201);
    const intruderKey = new SoftwareAuthenticator(app.origin);
    expect((await intruder.post('/me/passkeys', { credential: intruderKey.create((await intruder.post('/me/passkeys/registration/options')).body.data) })).status).toBe(201);
    const setup = await intruder.post('/me/two-factor/setup');
    const secret = setup.body.data.secret as string;
    const enabled = await intruder.post('/me/two-factor', { code: await generate({ secret, epoch: epoch() }), current_password: PASSWORD });
    expect([enabled.status, enabled.body.data.enabled]).toEqual([200, true]);
    const recoveryCode = (enabled.body.data.recovery_codes as string[])[0];
    app.clock.advance(HOUR);
    const elsewhere = newEmail('intruder');
    const mailed = app.smtp.server.messages.length;
    expect((await intruder.post('/me/email', { email: elsewhere, current_password: PASSWORD })).status).toBe(201);
    expect((await intruder.post('/me/email/verify', { code: codeIn(await mailTo(elsewhere, /./, mailed)) })).status).toBe(200);

    // the owner undoes it through the link e-mailed to the old address
    const undoMail = await mailTo(email, /./, mailed);
    const undone = await fresh().post('/email-changes/undo', { token: tokenIn(linkIn(undoMail)) });
    expect(undone.status).toBe(200);
    // then resets the password after the day's hold; the reset e-mail says what was removed
    app.clock.advance(24 * HOUR + 1000);
    const asked = app.smtp.server.messages.length;
    expect((await fresh().post('/password-resets', { email }, { 'service-challenge': testChallengeToken('password_reset') })).status).toBe(202);
    const resetMail = await mailTo(email, /password/i, asked);
    const NEW_PASSWORD = 'the owner’s brand new passphrase';
    expect((await fresh().post('/password-resets/confirm', { token: tokenIn(linkIn(resetMail)), new_password: NEW_PASSWORD })).status).toBe(200);

    // the intruder's passkey is on no account: it starts no session
    const byKey = fresh();
    const options = await byKey.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    const byPasskey = await byKey.post('/passkeys/authentication/verify', { credential: intruderKey.get(options.body.data) });
    expect([...answer(byPasskey), byKey.jar.has('session')]).toEqual([400, 'passkey_unknown', false]);
    // the owner signs in with the new password: a session at once, no second step asked
    const ownerAgain = fresh();
    const signedIn = await signIn(ownerAgain, email, NEW_PASSWORD);
    expect([signedIn.status, signedIn.body.data.kind, ownerAgain.jar.has('session')]).toEqual([201, 'session', true]);
    expect((await ownerAgain.get('/me/two-factor')).body.data).toEqual({ kind: 'two_factor', enabled: false, enabled_at: null, recovery_codes_remaining: 0 });
    expect((await ownerAgain.get('/me/passkeys')).body.data).toEqual([]);
    // nor does the intruder's recovery code or authenticator turn anything off or on: two-step sign-in is off
    expect(answer(await ownerAgain.post('/me/two-factor/disable', { current_password: NEW_PASSWORD, recovery_code: recoveryCode }))).toEqual([409, 'two_factor_disabled']);

    // what was removed: in the undo's answer, on the person's stream, in the reset e-mail
    expect(undone.body.data).toEqual({ kind: 'email_change_undo', email, reset_hold_until: expect.any(String), passkeys_removed: 2, two_factor_turned_off: true });
    const store = app.api.app.get<EventStore>(EVENT_STORE);
    const stream = await store.readStream(`account-${account.id}`);
    const undoneAt = stream.findIndex((e) => e.type === 'EmailChangeUndone');
    expect(stream.slice(undoneAt).filter((e) => e.type === 'PasskeyRemoved' || e.type === 'TwoFactorDisabled').map((e) => [e.type, (e.data as { reason?: string }).reason])).toEqual([
      ['PasskeyRemoved', 'email_change_undone'],
      ['PasskeyRemoved', 'email_change_undone'],
      ['TwoFactorDisabled', 'email_change_undone'],
    ]);
    expect(resetMail.text).toContain('removed its 2 passkeys and turned two-step sign-in off');
    expect(undoMail.text).toContain('removes every passkey of the account and turns two-step sign-in off');

    // the projections replay to the same rows: the passkeys stay gone, the password stays the new one
    const db = app.api.app.get<Database>(DATABASE);
    const rows = async () => ({
      passkeys: (await db.query('SELECT id FROM account_passkeys WHERE account_id = $1', [account.id])).rows,
      account: (await db.query('SELECT email, password_hash FROM accounts WHERE id = $1', [account.id])).rows,
    });
    const before = await rows();
    for (const projector of [passkeysProjector, accountsProjector]) expect((await verifyProjection(store, db, projector)).differences).toEqual([]);
    await rebuildProjection(store, db, passkeysProjector, { batchSize: 7 });
    await rebuildProjection(store, db, accountsProjector, { batchSize: 7 });
    expect(await rows()).toEqual(before);
    expect(before.passkeys).toEqual([]);
    const afterRebuild = fresh();
    const options2 = await afterRebuild.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    expect(answer(await afterRebuild.post('/passkeys/authentication/verify', { credential: intruderKey.get(options2.body.data) }))).toEqual([400, 'passkey_unknown']);
    expect(answer(await signIn(fresh(), email, NEW_PASSWORD))).toEqual([201, 'session']);

    // the owner adds a passkey again and signs in with it
    const readd = await ownerAgain.post('/me/passkeys', { credential: ownerKey.create((await ownerAgain.post('/me/passkeys/registration/options')).body.data) });
    expect(readd.status).toBe(201);
    const withKey = fresh();
    const options3 = await withKey.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    expect(answer(await withKey.post('/passkeys/authentication/verify', { credential: ownerKey.get(options3.body.data, ownerKey.credentials.at(-1)) }))).toEqual([201, 'session']);
  });
});
