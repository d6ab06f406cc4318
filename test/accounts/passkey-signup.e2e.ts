import { testChallengeToken } from '@lib/challenge';
import { eventually } from '../support/eventually';
import { linkIn } from '../support/smtp';
import { accountsAppForSuite, Browser, PASSWORD, challenge, newEmail, signIn, signUp } from './support';
import { SoftwareAuthenticator } from './software-authenticator';

const MINUTE = 60 * 1000;

/**
 * Passkey sign-up over real HTTP (issue #14 item 1; decision 0037, "Passkey sign-up"): the real
 * app on the embedded store, a real SMTP server in the test for the codes, a cookie jar per
 * browser, and the software authenticator answering the service's WebAuthn options as a
 * browser would. A passkey sign-up is finished only in the browser that started it (400
 * signup_browser_required), opens an account without a password, and the passkey it registered
 * then signs the person in.
 */
describe('passkey sign-up over HTTP', () => {
  const app = accountsAppForSuite({ logs: false });

  const browser = () => new Browser(app.api);

  /** POST /accounts without a password in `b`: the pending sign-up. */
  async function startPasswordless(b: Browser, email = newEmail('passkey')) {
    const started = await b.post('/accounts', { email, business_name: 'Passkey Shop', simulated: true }, challenge('sign_up'));
    expect(started.status).toBe(201);
    expect(b.jar.has('signup')).toBe(true);
    return { email, signupId: started.body.data.id as string };
  }

  async function options(b: Browser, signupId: string) {
    const answer = await b.post('/accounts/passkey-options', { signup_id: signupId });
    expect(answer.status).toBe(200);
    return answer.body.data;
  }

  /** A new browser's pending passwordless sign-up, its passkey options asked and a new authenticator's credential made for them (not yet verified). */
  async function passkeyOffered() {
    const b = browser();
    const { email, signupId } = await startPasswordless(b);
    const authenticator = new SoftwareAuthenticator(app.origin);
    const credential = authenticator.create(await options(b, signupId));
    return { b, email, signupId, authenticator, credential };
  }

  async function passkeySignIn(b: Browser, authenticator: SoftwareAuthenticator) {
    const asked = await b.post('/passkeys/authentication/options', undefined, challenge('sign_in'));
    expect(asked.status).toBe(200);
    return b.post('/passkeys/authentication/verify', { credential: authenticator.get(asked.body.data) });
  }

  it('the whole walk: no password, options bound to the sign-up, code then passkey → the account with its passkey and a passkey session; then the passkey signs in, no password does, and the only passkey stays', async () => {
    const b = browser();
    const { email, signupId } = await startPasswordless(b);

    const creation = await options(b, signupId);
    expect(creation).toMatchObject({
      rp: { id: new URL(app.origin).hostname },
      user: { name: email },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: [],
    });
    // asked again: a new challenge, the same user (the account the sign-up opens, chosen at POST /accounts)
    const again = await options(b, signupId);
    expect(again.challenge).not.toBe(creation.challenge);
    expect(again.user.id).toBe(creation.user.id);

    const authenticator = new SoftwareAuthenticator(app.origin);
    const credential = authenticator.create(again);
    const code = await app.smtp.code(email);
    const verified = await b.post('/accounts/verify', { signup_id: signupId, code, credential });
    expect(verified.status).toBe(201);
    const { account, session } = verified.body.data;
    expect(account).toMatchObject({ kind: 'account', email, businesses: [{ role: 'owner', name: 'Passkey Shop' }] });
    expect(Buffer.from(account.id).toString('base64url')).toBe(creation.user.id); // the passkey's user handle names the account
    expect(session).toMatchObject({ kind: 'session', current: true, method: 'passkey' });
    expect(b.jar.has('session') && b.jar.has('device')).toBe(true);
    expect(b.jar.has('signup')).toBe(false);

    // signed in, with the passkey listed
    expect((await b.get('/me')).body.data.id).toBe(account.id);
    const listed = await b.get('/me/passkeys');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ kind: 'passkey', name: 'Passkey', transports: ['internal', 'hybrid'] })]);
    const passkeyId = listed.body.data[0].id as string;
    expect((await b.get('/business', { 'service-business': account.businesses[0].id })).status).toBe(200);

    // the options were spent: the same registration cannot open anything again
    const replay = await browser().post('/accounts/verify', { signup_id: signupId, code, credential });
    expect([replay.status, replay.body.error.code]).toEqual([409, 'verification_expired']);

    // no password: any password is refused as for an unknown address
    const withPassword = await signIn(browser(), email, PASSWORD);
    expect([withPassword.status, withPassword.body.error.code]).toEqual([400, 'invalid_credentials']);
    const unknown = await signIn(browser(), newEmail('nobody'), PASSWORD);
    expect([unknown.status, { ...unknown.body.error, request_id: null }]).toEqual([400, { ...withPassword.body.error, request_id: null }]);
    const empty = await signIn(browser(), email, 'x');
    expect([empty.status, empty.body.error.code]).toEqual([400, 'invalid_credentials']);
    // nor does a step-up by password
    const stepUp = await b.post('/sessions/current/step-up', { current_password: PASSWORD });
    expect([stepUp.status, stepUp.body.error.code]).toEqual([400, 'invalid_credentials']);

    // the passkey signs the person in, in another browser
    const elsewhere = browser();
    const signedIn = await passkeySignIn(elsewhere, authenticator);
    expect(signedIn.status).toBe(201);
    expect(signedIn.body.data).toMatchObject({ kind: 'session', method: 'passkey' });
    expect((await elsewhere.get('/me')).body.data.id).toBe(account.id);

    // the only way to sign in cannot be removed (the sign-up's passkey session is a proof: no step-up asked)
    const removed = await b.delete(`/me/passkeys/${passkeyId}`);
    expect([removed.status, removed.body.error.code]).toEqual([409, 'last_sign_in_method']);
    expect((await b.get('/me/passkeys')).body.data).toHaveLength(1);
  });

  it('a password reset is the way back: it gives the person a password, and then the passkey may go', async () => {
    const { b, email, signupId, credential } = await passkeyOffered();
    expect((await b.post('/accounts/verify', { signup_id: signupId, code: await app.smtp.code(email), credential })).status).toBe(201);
    const passkeyId = (await b.get('/me/passkeys')).body.data[0].id as string;

    const asked = await browser().post('/password-resets', { email }, { 'service-challenge': testChallengeToken('password_reset') });
    expect(asked.status).toBe(202);
    const mail = await eventually(() => app.smtp.server.messages.filter((m) => m.to.includes(email.toLowerCase())).find((m) => m.subject === 'Reset your password'), { what: `reset link to ${email}` });
    const token = /#token=([A-Za-z0-9_.-]+)$/.exec(linkIn(mail))![1];
    const NEW_PASSWORD = 'a brand new passphrase 42';
    expect((await browser().post('/password-resets/confirm', { token, new_password: NEW_PASSWORD })).status).toBe(200);

    const signedIn = browser();
    expect((await signIn(signedIn, email, NEW_PASSWORD)).status).toBe(201);
    const removed = await signedIn.delete(`/me/passkeys/${passkeyId}`); // a password sign-in is a proof: no step-up asked
    expect([removed.status, removed.body.data?.id]).toEqual([200, passkeyId]);
  });

  // audit F6 (2026-11-29; decision 0037 addendum): an account without a password proves itself by a step-up on /me/password and /me/email
  async function passwordless() {
    const { b, email, signupId, authenticator, credential } = await passkeyOffered();
    expect((await b.post('/accounts/verify', { signup_id: signupId, code: await app.smtp.code(email), credential })).status).toBe(201);
    return { b, email, authenticator };
  }

  it('no password: /me/password sets a first one without current_password while the session is stepped up (403 step_up_required otherwise); then the password is required', async () => {
    const { b, email, authenticator } = await passwordless();
    const NEW_PASSWORD = 'a first passphrase 42';
    const elsewhere = browser();
    expect((await passkeySignIn(elsewhere, authenticator)).status).toBe(201);
    // the sign-up's proof is 15 minutes old: no step-up now
    app.clock.advance(16 * MINUTE);
    const stale = await b.post('/me/password', { new_password: NEW_PASSWORD });
    expect([stale.status, stale.body.error.code]).toEqual([403, 'step_up_required']);
    expect((await signIn(browser(), email, NEW_PASSWORD)).body.error.code).toBe('invalid_credentials');
    // a passkey step-up, then the first password (policy applied first)
    const asked = await b.post('/sessions/current/step-up/options');
    expect((await b.post('/sessions/current/step-up', { credential: authenticator.get(asked.body.data) })).status).toBe(200);
    const weak = await b.post('/me/password', { new_password: 'short' });
    expect([weak.status, weak.body.error.code, weak.body.error.field]).toEqual([400, 'weak_password', 'new_password']);
    const set = await b.post('/me/password', { new_password: NEW_PASSWORD });
    expect([set.status, set.body.data.email]).toEqual([200, email]);
    expect((await elsewhere.get('/me')).status).toBe(401); // as any password change: the other sessions end
    expect((await signIn(browser(), email, NEW_PASSWORD)).status).toBe(201);
    // it has a password now: the current one is required again, stepped up or not
    const without = await b.post('/me/password', { new_password: 'another passphrase 43' });
    expect([without.status, without.body.error.code, without.body.error.field]).toEqual([400, 'invalid_request', 'current_password']);
    expect((await b.post('/me/password', { current_password: NEW_PASSWORD, new_password: 'another passphrase 43' })).status).toBe(200);
  });

  it('no password: /me/email starts a change without current_password while the session is stepped up (403 step_up_required otherwise); a person with a password still gives it', async () => {
    const { b } = await passwordless();
    const next = newEmail('moved');
    const started = await b.post('/me/email', { email: next }); // the passkey sign-up's session: a proof of the last 15 minutes
    expect([started.status, started.body.data?.kind]).toEqual([201, 'email_change']);
    expect((await b.post('/me/email/verify', { code: await app.smtp.code(next) })).body.data.email).toBe(next);
    app.clock.advance(16 * MINUTE);
    const stale = await b.post('/me/email', { email: newEmail('again') });
    expect([stale.status, stale.body.error.code]).toEqual([403, 'step_up_required']);

    const withPassword = browser();
    await signUp(app, withPassword); // its sign-up session is stepped up too: the password is still asked
    const refused = await withPassword.post('/me/email', { email: newEmail('other') });
    expect([refused.status, refused.body.error.code, refused.body.error.field]).toEqual([400, 'invalid_request', 'current_password']);
  });

  it('another browser (no sign-up cookie, or another sign-up’s): 400 signup_browser_required for the options and the verify, before the code — no try spent', async () => {
    const { b, email, signupId, credential } = await passkeyOffered();
    const code = await app.smtp.code(email);

    const stranger = browser();
    const otherSignup = browser();
    await startPasswordless(otherSignup); // its own sign-up cookie, not this sign-up's
    for (const other of [stranger, otherSignup]) {
      const asked = await other.post('/accounts/passkey-options', { signup_id: signupId });
      expect([asked.status, asked.body.error.code]).toEqual([400, 'signup_browser_required']);
    }
    // more than the 5 tries a code has, wrong codes and the right one, with or without a password: none counts
    for (const body of [
      { code: '000000', credential },
      { code: '000001', credential },
      { code, credential },
      { code, credential, password: PASSWORD },
      { code: '000002', password: PASSWORD },
      { code },
    ]) {
      const refused = await (body.code === code ? otherSignup : stranger).post('/accounts/verify', { signup_id: signupId, ...body });
      expect([refused.status, refused.body.error.code]).toEqual([400, 'signup_browser_required']);
    }
    expect(stranger.jar.has('session')).toBe(false);

    // the starting browser still finishes with the same options
    const verified = await b.post('/accounts/verify', { signup_id: signupId, code, credential });
    expect(verified.status).toBe(201);
  });

  it('the code rules still hold: the form first, a wrong code spends a try (the passkey stays usable); a right code with a bad passkey spends none and opens nothing', async () => {
    const b = browser();
    const { email, signupId } = await startPasswordless(b);
    const authenticator = new SoftwareAuthenticator(app.origin);
    const creation = await options(b, signupId);
    const credential = authenticator.create(creation);
    const code = await app.smtp.code(email);
    const wrong = code === '000000' ? '000001' : '000000';

    // the form of the request first: no passkey, or a password, on a passkey sign-up
    const noPasskey = await b.post('/accounts/verify', { signup_id: signupId, code });
    expect([noPasskey.status, noPasskey.body.error.code, noPasskey.body.error.field]).toEqual([400, 'invalid_request', 'credential']);
    const withPassword = await b.post('/accounts/verify', { signup_id: signupId, code, credential, password: PASSWORD });
    expect([withPassword.status, withPassword.body.error.code, withPassword.body.error.field]).toEqual([400, 'invalid_request', 'password']);

    // four wrong codes: counted
    for (let i = 0; i < 4; i++) {
      const refused = await b.post('/accounts/verify', { signup_id: signupId, code: wrong, credential });
      expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_code']);
    }
    // the right code with registrations that do not verify: 400 passkey_failed, no try spent, nothing opened
    const noUserVerification = new SoftwareAuthenticator(app.origin);
    noUserVerification.verifiesUser = false;
    const phishing = new SoftwareAuthenticator('https://evil.example');
    for (const bad of [noUserVerification.create(creation), phishing.create(creation), authenticator.create({ ...creation, challenge: Buffer.from('another challenge').toString('base64url') })]) {
      const failed = await b.post('/accounts/verify', { signup_id: signupId, code, credential: bad });
      expect([failed.status, failed.body.error.code]).toEqual([400, 'passkey_failed']);
    }
    expect(b.jar.has('session')).toBe(false);
    expect((await b.get('/me')).status).toBe(401);
    expect((await signIn(browser(), email, PASSWORD)).body.error.code).toBe('invalid_credentials');

    // the fifth try is still there, and the passkey made before the wrong codes still answers the same options
    const verified = await b.post('/accounts/verify', { signup_id: signupId, code, credential });
    expect(verified.status).toBe(201);
    expect(verified.body.data.session.method).toBe('passkey');
    expect((await passkeySignIn(browser(), authenticator)).status).toBe(201);
  });

  it('5 wrong codes lock the code (429 too_many_attempts) until a new one; a code older than 15 minutes is 400 code_expired; options older than five minutes are 400 passkey_failed', async () => {
    const b = browser();
    const { email, signupId } = await startPasswordless(b);
    const code = await app.smtp.code(email);
    const wrong = code === '000000' ? '000001' : '000000';
    const authenticator = new SoftwareAuthenticator(app.origin);
    const credential = authenticator.create(await options(b, signupId));
    for (let i = 0; i < 5; i++) expect((await b.post('/accounts/verify', { signup_id: signupId, code: wrong, credential })).body.error.code).toBe('invalid_code');
    const locked = await b.post('/accounts/verify', { signup_id: signupId, code, credential });
    expect([locked.status, locked.body.error.code]).toEqual([429, 'too_many_attempts']);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);

    // a new code a minute after the last unlocks; 15 minutes later it is too old
    app.clock.advance(MINUTE);
    expect((await b.post('/accounts/verify/resend', { signup_id: signupId })).status).toBe(200);
    const second = await app.smtp.code(email, 2);
    app.clock.advance(16 * MINUTE);
    const old = await b.post('/accounts/verify', { signup_id: signupId, code: second, credential });
    expect([old.status, old.body.error.code]).toEqual([400, 'code_expired']);

    expect((await b.post('/accounts/verify/resend', { signup_id: signupId })).status).toBe(200);
    const fresh = await app.smtp.code(email, 3);
    // the options are older than five minutes: the registration no longer verifies — new options, a new registration
    const stale = await b.post('/accounts/verify', { signup_id: signupId, code: fresh, credential });
    expect([stale.status, stale.body.error.code]).toEqual([400, 'passkey_failed']);
    const renewed = authenticator.create(await options(b, signupId), authenticator.credentials[0]);
    const verified = await b.post('/accounts/verify', { signup_id: signupId, code: fresh, credential: renewed });
    expect(verified.status).toBe(201);
  });

  it('a password sign-up takes no passkey at verify and has no passkey options (400 invalid_request); it still finishes as before', async () => {
    const b = browser();
    const email = newEmail('password');
    const started = await b.post('/accounts', { email, password: PASSWORD, business_name: 'Shop' }, challenge('sign_up'));
    expect(started.status).toBe(201);
    const signupId = started.body.data.id as string;
    const asked = await b.post('/accounts/passkey-options', { signup_id: signupId });
    expect([asked.status, asked.body.error.code, asked.body.error.field]).toEqual([400, 'invalid_request', 'signup_id']);
    const code = await app.smtp.code(email);
    const credential = new SoftwareAuthenticator(app.origin).create({ challenge: 'AAAA', rp: { name: 'x' }, user: { id: 'eA', name: email } });
    const withPasskey = await b.post('/accounts/verify', { signup_id: signupId, code, credential });
    expect([withPasskey.status, withPasskey.body.error.code, withPasskey.body.error.field]).toEqual([400, 'invalid_request', 'credential']);
    const verified = await b.post('/accounts/verify', { signup_id: signupId, code });
    expect([verified.status, verified.body.data.session.method]).toEqual([201, 'sign_up']);
  });

  it('options for an unknown or finished sign-up: 409 verification_expired', async () => {
    const unknown = await browser().post('/accounts/passkey-options', { signup_id: 'sgn_none' });
    expect([unknown.status, unknown.body.error.code]).toEqual([409, 'verification_expired']);
    const b = browser();
    const { signupId } = await signUp(app, b);
    const finished = await b.post('/accounts/passkey-options', { signup_id: signupId });
    expect([finished.status, finished.body.error.code]).toEqual([409, 'verification_expired']);
  });
});
