import { testChallengeToken } from '@lib/challenge';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { eventually } from '../support/eventually';
import { ReceivedMail, codeIn, linkIn } from '../support/smtp';
import { accountsAppForSuite, Browser, PASSWORD, TestSmtp, challenge, newEmail, signIn, signUp } from './support';

/**
 * Password resets and e-mail changes over real HTTP (issue #14 item 4, §7, §8; decision 0038):
 * the real app on the embedded store, a cookie jar per browser, a real SMTP server the links and
 * codes are read from, and the accounts clock moved by the test (never slept).
 */

const NEW_PASSWORD = 'a brand new passphrase 42';
const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

/** A fresh bot-challenge token for the reset form (single use). */
const RESET_CHALLENGE = () => ({ 'service-challenge': testChallengeToken('password_reset') });

/** The `nth` (default: newest) message to `to`, waited for with a deadline. */
const mailTo = (smtp: TestSmtp, to: string, nth?: number): Promise<ReceivedMail> =>
  eventually(
    () => {
      const mine = smtp.server.messages.filter((m) => m.to.includes(to.toLowerCase()));
      return nth === undefined ? mine.at(-1) : mine[nth - 1];
    },
    { what: `e-mail ${nth ?? 'last'} to ${to}` },
  );

/** The token of the newest (or `nth`) e-mailed link to `to`. */
async function linkToken(smtp: TestSmtp, to: string, nth?: number): Promise<string> {
  const link = linkIn(await mailTo(smtp, to, nth));
  const match = /#token=([A-Za-z0-9_.-]+)$/.exec(link);
  if (!match) throw new Error(`no token in the link to ${to}`);
  return match[1];
}

/** The confirmation code of the `nth` e-mail to `to`. */
const changeCode = async (smtp: TestSmtp, to: string, nth: number): Promise<string> => codeIn(await mailTo(smtp, to, nth));

describe('password resets and e-mail changes over HTTP', () => {
  const app = accountsAppForSuite();
  const logs = app.logs;
  const SECRETS: string[] = [];

  const browser = () => new Browser(app.api);
  /** A reset asked for from a fresh browser (one per request: the per-IP rule is 5 an hour). */
  const askReset = (email: string, headers: Record<string, string> = RESET_CHALLENGE()) => browser().post('/password-resets', { email }, headers);
  const mailsTo = (email: string) => app.smtp.countTo(email);

  it('resets a password through the e-mailed link: checked, the policy applied, every session ended, the old password gone, the link used once', async () => {
    const ann = browser();
    const { email } = await signUp(app, ann);
    const phone = browser();
    expect((await signIn(phone, email)).status).toBe(201);

    const refused = await browser().post('/password-resets', { email });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'challenge_failed']);

    const asked = await askReset(email);
    expect([asked.status, asked.body]).toEqual([202, { data: { kind: 'password_reset_request', email } }]);
    const token = await linkToken(app.smtp, email);
    SECRETS.push(token);
    const mail = await mailTo(app.smtp, email);
    expect(linkIn(mail)).toMatch(new RegExp(`^https?://[^/]+/password-reset#token=${token.replace('.', '\\.')}$`));
    expect([mail.subject, typeof mail.text, typeof mail.html]).toEqual(['Reset your password', 'string', 'string']);

    const checked = await browser().post('/password-resets/check', { token });
    expect([checked.status, checked.body.data]).toEqual([200, { kind: 'password_reset', email, expires_at: expect.any(String), hold_until: null }]);
    expect(Date.parse(checked.body.data.expires_at) - app.clock.now().getTime()).toBeGreaterThan(HOUR - 60_000);

    const weak = await browser().post('/password-resets/confirm', { token, new_password: 'short' });
    expect([weak.status, weak.body.error.code, weak.body.error.field]).toEqual([400, 'weak_password', 'new_password']);
    const long = await browser().post('/password-resets/confirm', { token, new_password: 'x1y2'.repeat(64) + 'z' }); // 257: the length rule (audit F3)
    expect([long.status, long.body.error.code, long.body.error.field]).toEqual([400, 'weak_password', 'new_password']);
    const done = await browser().post('/password-resets/confirm', { token, new_password: NEW_PASSWORD });
    expect([done.status, done.body.data.kind, done.body.data.email]).toEqual([200, 'password_reset', email]);

    for (const b of [ann, phone]) expect((await b.get('/me')).status).toBe(401);
    expect((await signIn(browser(), email)).body.error.code).toBe('invalid_credentials');
    expect((await signIn(browser(), email, NEW_PASSWORD)).status).toBe(201);

    for (const path of ['/password-resets/check', '/password-resets/confirm']) {
      const used = await browser().post(path, path.endsWith('confirm') ? { token, new_password: 'yet another passphrase 7' } : { token });
      expect([path, used.status, used.body.error.code]).toEqual([path, 400, 'invalid_token']);
    }
    for (const bad of ['nope', `${token}x`, token.replace(/^acc_/, 'acc_Z'), 'acc_x.' + 'A'.repeat(43)]) {
      const malformed = await browser().post('/password-resets/check', { token: bad });
      expect([bad, malformed.status, malformed.body.error.code]).toEqual([bad, 400, 'invalid_token']);
    }
  });

  it('tells nothing about the address: an unknown one gets the same status and body shape, and no e-mail', async () => {
    const { email } = await signUp(app, browser());
    const unknown = newEmail('nobody');
    const known = await askReset(email);
    const none = await askReset(unknown);
    expect([none.status, Object.keys(none.body), Object.keys(none.body.data).sort()]).toEqual([known.status, Object.keys(known.body), Object.keys(known.body.data).sort()]);
    expect(none.body.data).toEqual({ ...known.body.data, email: unknown });
    await linkToken(app.smtp, email);
    expect(mailsTo(unknown)).toBe(0);
  });

  it('makes a newer link replace the last, and a link stop after an hour (invalid_token)', async () => {
    const { email } = await signUp(app, browser());
    await askReset(email);
    const first = await linkToken(app.smtp, email, 2);
    await askReset(email);
    const second = await linkToken(app.smtp, email, 3);
    SECRETS.push(first, second);
    expect((await browser().post('/password-resets/check', { token: first })).body.error.code).toBe('invalid_token');
    expect((await browser().post('/password-resets/check', { token: second })).status).toBe(200);
    app.clock.advance(HOUR);
    const late = await browser().post('/password-resets/confirm', { token: second, new_password: NEW_PASSWORD });
    expect([late.status, late.body.error.code]).toEqual([400, 'invalid_token']);
  });

  it('sends at most 3 reset links an hour per address; past them the answer is the same and nothing is sent', async () => {
    const { email } = await signUp(app, browser());
    const before = mailsTo(email); // the sign-up code
    for (let i = 0; i < 5; i++) {
      const asked = await askReset(email);
      expect([asked.status, asked.body.data]).toEqual([202, { kind: 'password_reset_request', email }]);
    }
    await eventually(() => mailsTo(email) === before + 3 || undefined, { what: '3 reset e-mails' });
    expect(mailsTo(email)).toBe(before + 3);
    const third = await linkToken(app.smtp, email);
    expect((await browser().post('/password-resets/check', { token: third })).status).toBe(200); // the refused ones replaced nothing
    app.clock.advance(HOUR);
    await askReset(email);
    await eventually(() => mailsTo(email) === before + 4 || undefined, { what: 'a reset e-mail an hour later' });
  });

  it('concurrent reset requests: an e-mail only for each link recorded (3 an hour), none for the others, and the newest link works (audit F1, 2026-11-29)', async () => {
    const { email } = await signUp(app, browser());
    const before = mailsTo(email); // the sign-up code
    const answers = await Promise.all(Array.from({ length: 6 }, () => askReset(email)));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202, 202]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // three links were recorded (one replacing the other); every e-mail carries one of them, so three e-mails
    expect(mailsTo(email)).toBe(before + 3);
    const tokens = await Promise.all([1, 2, 3].map((n) => linkToken(app.smtp, email, before + n)));
    const checks = await Promise.all(tokens.map(async (token) => (await browser().post('/password-resets/check', { token })).status));
    expect(checks.sort()).toEqual([200, 400, 400]);
  });

  it('concurrent e-mail changes: an e-mail only for each change recorded (3 an hour; the fourth 429 sends nothing), and exactly one of those codes confirms (audit F1, 2026-11-29)', async () => {
    // four addresses at once (since 2026-11-30 one address gets a new code only a minute after the last: below)
    const ann = browser();
    await signUp(app, ann);
    const addresses = [1, 2, 3, 4].map((n) => newEmail(`concurrent${n}-`));
    const answers = await Promise.all(addresses.map((email) => ann.post('/me/email', { email, current_password: PASSWORD })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 429]);
    expect(answers.find((a) => a.status === 429)!.body.error.code).toBe('too_many_emails');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const mailed = addresses.filter((email, i) => answers[i].status === 201);
    expect(addresses.map((email) => mailsTo(email)).reduce((a, b) => a + b, 0)).toBe(3);
    for (const email of mailed) expect(mailsTo(email)).toBe(1);
    const codes = await Promise.all(mailed.map((email) => changeCode(app.smtp, email, 1)));
    const tries: number[] = [];
    for (const code of codes) tries.push((await ann.post('/me/email/verify', { code })).status);
    expect(tries.filter((s) => s === 200)).toHaveLength(1);

    // one address four times at once: one change and one e-mail, the rest 429 too_many_emails (a minute after the last; audit lim F3)
    const bob = browser();
    await signUp(app, bob);
    const next = newEmail('concurrent-same');
    const same = await Promise.all(Array.from({ length: 4 }, () => bob.post('/me/email', { email: next, current_password: PASSWORD })));
    expect(same.map((a) => a.status).sort()).toEqual([201, 429, 429, 429]);
    for (const refused of same.filter((a) => a.status === 429)) expect(refused.body.error.code).toBe('too_many_emails');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mailsTo(next)).toBe(1);
    expect((await bob.post('/me/email/verify', { code: await changeCode(app.smtp, next, 1) })).status).toBe(200);
  });

  it('SMTP refusing after the append: a reset link is withdrawn (the same 202, the earlier link still works); an e-mail change is 503 and withdrawn (nothing pending, the 3 an hour not spent) (2026-11-29)', async () => {
    const ann = browser();
    const { email } = await signUp(app, ann);
    expect((await askReset(email)).status).toBe(202);
    const earlier = await linkToken(app.smtp, email);
    const next = newEmail('undelivered');
    app.smtp.server.refuse();
    try {
      const asked = await askReset(email);
      expect([asked.status, asked.body.data]).toEqual([202, { kind: 'password_reset_request', email }]);
      for (let i = 0; i < 3; i++) {
        const change = await ann.post('/me/email', { email: next, current_password: PASSWORD });
        expect([i, change.status, change.body.error?.code]).toEqual([i, 503, 'email_unavailable']);
      }
    } finally {
      app.smtp.server.accept();
    }
    expect((await browser().post('/password-resets/check', { token: earlier })).status).toBe(200);
    const pending = await ann.post('/me/email/verify', { code: '123456' });
    expect([pending.status, pending.body.error.code]).toEqual([409, 'verification_expired']);
    // three undelivered changes spent none of the 3 an hour: a fourth starts and its code confirms
    const started = await ann.post('/me/email', { email: next, current_password: PASSWORD });
    expect(started.status).toBe(201);
    expect((await ann.post('/me/email/verify', { code: await changeCode(app.smtp, next, 1) })).status).toBe(200);
  });

  it('spends the per-IP rule password_resets.create (5 an hour) and tokens (20 per 10 minutes)', async () => {
    const b = browser();
    for (let i = 0; i < 5; i++) expect((await b.post('/password-resets', { email: newEmail('ip') }, RESET_CHALLENGE())).status).toBe(202);
    const limited = await b.post('/password-resets', { email: newEmail('ip') }, RESET_CHALLENGE());
    expect([limited.status, limited.body.error.code, Number(limited.headers.get('retry-after')) > 0]).toEqual([429, 'rate_limited', true]);
    const t = browser();
    const paths = ['/password-resets/check', '/password-resets/confirm', '/email-changes/undo'];
    for (let i = 0; i < 20; i++) expect((await t.post(paths[i % 3], { token: 'nope', new_password: NEW_PASSWORD })).status).toBe(400);
    const spent = await t.post('/email-changes/undo', { token: 'nope' });
    expect([spent.status, spent.body.error.code]).toEqual([429, 'rate_limited']);
  });

  it('re-enables a password that stopped working after 100 failures', async () => {
    const { email } = await signUp(app, browser());
    let failures = 0;
    let b = browser();
    while (failures < 100) {
      if (failures % 10 === 0) b = browser(); // the per-IP rule of sign-in
      const attempt = await signIn(b, email, 'wrong password, again');
      if (attempt.status === 429) {
        app.clock.advance(Number(attempt.headers.get('retry-after')) * 1000 + 1000);
        continue;
      }
      expect(attempt.body.error.code).toBe('invalid_credentials');
      failures++;
    }
    app.clock.advance(HOUR + 1000);
    const disabled = await signIn(browser(), email);
    expect([disabled.status, disabled.body.error.code]).toEqual([403, 'password_reset_required']);
    await askReset(email);
    const token = await linkToken(app.smtp, email);
    expect((await browser().post('/password-resets/confirm', { token, new_password: NEW_PASSWORD })).status).toBe(200);
    expect((await signIn(browser(), email, NEW_PASSWORD)).status).toBe(201);
  });

  it('changes the e-mail address with a code e-mailed to the new one; the old address gets an undo link', async () => {
    const ann = browser();
    const { email: old, account } = await signUp(app, ann);
    const taken = (await signUp(app, browser())).email;
    const next = newEmail('moved');

    const wrong = await ann.post('/me/email', { email: next, current_password: 'not it at all' });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.field]).toEqual([400, 'invalid_credentials', 'current_password']);
    const clash = await ann.post('/me/email', { email: taken.toUpperCase(), current_password: PASSWORD });
    expect([clash.status, clash.body.error.code, clash.body.error.field]).toEqual([409, 'email_taken', 'email']);
    const same = await ann.post('/me/email', { email: old, current_password: PASSWORD });
    expect([same.status, same.body.error.code]).toEqual([400, 'invalid_request']);

    const started = await ann.post('/me/email', { email: next, current_password: PASSWORD });
    expect([started.status, started.body.data]).toEqual([201, { kind: 'email_change', id: expect.stringMatching(/^emc_/), email: next, expires_at: expect.any(String), code_expires_at: expect.any(String) }]);
    const code = await changeCode(app.smtp, next, 1);
    SECRETS.push(code);
    const miss = await ann.post('/me/email/verify', { code: code === '000000' ? '111111' : '000000' });
    expect([miss.status, miss.body.error.code]).toEqual([400, 'invalid_code']);
    const malformed = await ann.post('/me/email/verify', { code: 'abc' });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'invalid_code']);
    const confirmed = await ann.post('/me/email/verify', { code: `${code.slice(0, 3)} ${code.slice(3)}` });
    expect([confirmed.status, confirmed.body.data.id, confirmed.body.data.email]).toEqual([200, account.id, next]);
    expect((await ann.get('/me')).body.data.email).toBe(next);

    const undoMail = await mailTo(app.smtp, old, 2);
    expect(undoMail.text).toContain(next);
    expect(linkIn(undoMail)).toMatch(/\/email-change\/undo#token=acc_/);
    expect((await signIn(browser(), next)).status).toBe(201);
    expect((await signIn(browser(), old)).body.error.code).toBe('invalid_credentials');
    // the old address is free: a sign-up may use it
    expect((await browser().post('/accounts', { email: old, password: PASSWORD, business_name: 'Reuse' }, challenge('sign_up'))).status).toBe(201);
    // the new one is taken
    expect((await browser().post('/accounts', { email: next, password: PASSWORD, business_name: 'Clash' }, challenge('sign_up'))).body.error.code).toBe('email_taken');
    const again = await ann.post('/me/email/verify', { code });
    expect([again.status, again.body.error.code]).toEqual([409, 'verification_expired']);
  });

  it('a new e-mail-change code to the same address only a minute after the last (429 too_many_emails, Retry-After); another address is a new change at once (audit lim F3, 2026-11-30)', async () => {
    const ann = browser();
    await signUp(app, ann);
    const next = newEmail('again');
    expect((await ann.post('/me/email', { email: next, current_password: PASSWORD })).status).toBe(201);
    await changeCode(app.smtp, next, 1);
    app.clock.advance(1_000);
    const soon = await ann.post('/me/email', { email: next, current_password: PASSWORD });
    expect([soon.status, soon.body.error.code, soon.headers.get('retry-after')]).toEqual([429, 'too_many_emails', '59']);
    expect(mailsTo(next)).toBe(1);
    // another address within the minute: a new change (one of the 3 an hour), its code sent at once
    const other = newEmail('other');
    expect((await ann.post('/me/email', { email: other, current_password: PASSWORD })).status).toBe(201);
    expect(mailsTo(other)).toBe(1);
    app.clock.advance(60_000);
    const later = await ann.post('/me/email', { email: other, current_password: PASSWORD });
    expect(later.status).toBe(201);
    const code = await changeCode(app.smtp, other, 2);
    expect((await ann.post('/me/email/verify', { code })).status).toBe(200);
  });

  it('e-mail change codes: code_expired after 15 minutes, 5 wrong tries → too_many_attempts, a newer change replaces the code, a day-old change is verification_expired, 3 changes an hour → too_many_emails', async () => {
    const ann = browser();
    const { email } = await signUp(app, ann);
    const first = newEmail('c1');
    expect((await ann.post('/me/email', { email: first, current_password: PASSWORD })).status).toBe(201);
    const code1 = await changeCode(app.smtp, first, 1);
    app.clock.advance(15 * 60_000);
    const expired = await ann.post('/me/email/verify', { code: code1 });
    expect([expired.status, expired.body.error.code, expired.body.error.field]).toEqual([400, 'code_expired', 'code']);

    const second = newEmail('c2');
    expect((await ann.post('/me/email', { email: second, current_password: PASSWORD })).status).toBe(201);
    const code2 = await changeCode(app.smtp, second, 1);
    const wrongCode = code2 === '123456' ? '654321' : '123456';
    for (let i = 0; i < 5; i++) expect((await ann.post('/me/email/verify', { code: wrongCode })).body.error.code).toBe('invalid_code');
    app.clock.advance(60_000);
    const locked = await ann.post('/me/email/verify', { code: code2 });
    // Retry-After: until the dead code expires — when this refusal ends (then code_expired) — never 1 s for ever (audit lim F1, 2026-11-30;
    // it said a day before audit F5, then 1)
    expect([locked.status, locked.body.error.code, locked.body.error.message]).toEqual([429, 'too_many_attempts', expect.stringMatching(/start the e-mail change again/)]);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(14 * 60 - 5);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(14 * 60);

    const third = newEmail('c3');
    expect((await ann.post('/me/email', { email: third, current_password: PASSWORD })).status).toBe(201);
    const fourth = await ann.post('/me/email', { email: newEmail('c4'), current_password: PASSWORD });
    expect([fourth.status, fourth.body.error.code, Number(fourth.headers.get('retry-after')) > 0]).toEqual([429, 'too_many_emails', true]);
    // the code of a replaced change no longer works (the newest change's code does)
    const code3 = await changeCode(app.smtp, third, 1);
    if (code3 !== code2) expect((await ann.post('/me/email/verify', { code: code2 })).body.error.code).toBe('invalid_code');
    // the third change's code locked too: no new change before the hour lets one start, and Retry-After says when (that of the 4th start)
    const wrong3 = code3 === '123456' ? '654321' : '123456';
    for (let i = code3 !== code2 ? 1 : 0; i < 5; i++) expect((await ann.post('/me/email/verify', { code: wrong3 })).body.error.code).toBe('invalid_code');
    const locked3 = await ann.post('/me/email/verify', { code: code3 });
    expect([locked3.status, locked3.body.error.code]).toEqual([429, 'too_many_attempts']);
    // the header is the dead code's remaining 15 minutes, not the hour's wait for a new change (that is POST /me/email's own 429)
    const wait3 = Number(locked3.headers.get('retry-after'));
    expect(wait3).toBeGreaterThanOrEqual(15 * 60 - 5);
    expect(wait3).toBeLessThanOrEqual(15 * 60);
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(40 * 60); // the first change was started 16 minutes ago: about 44 minutes
    // waited out: the refusal ends as the code's expiry (400 code_expired), not another 429
    app.clock.advance(wait3 * 1000);
    const expired3 = await ann.post('/me/email/verify', { code: code3 });
    expect([expired3.status, expired3.body.error.code, expired3.body.error.field]).toEqual([400, 'code_expired', 'code']);
    app.clock.advance(DAY);
    const later = browser(); // the session has gone idle meanwhile
    expect((await signIn(later, email)).status).toBe(201);
    const old = await later.post('/me/email/verify', { code: code3 });
    expect([old.status, old.body.error.code]).toEqual([409, 'verification_expired']);
  });

  it('undoes a change from the old address: the address back, every session ended, the password stopped (password_reset_required), new passwords held a day (reset_on_hold), then the reset', async () => {
    const ann = browser();
    const { email: old } = await signUp(app, ann);
    const next = newEmail('thief');
    await ann.post('/me/email', { email: next, current_password: PASSWORD });
    expect((await ann.post('/me/email/verify', { code: await changeCode(app.smtp, next, 1) })).status).toBe(200);
    const token = await linkToken(app.smtp, old);
    SECRETS.push(token);
    const thief = browser();
    expect((await signIn(thief, next)).status).toBe(201);

    const undone = await browser().post('/email-changes/undo', { token });
    expect([undone.status, undone.body.data]).toEqual([200, { kind: 'email_change_undo', email: old, reset_hold_until: expect.any(String), passkeys_removed: 0, two_factor_turned_off: false }]);
    for (const b of [ann, thief]) expect((await b.get('/me')).status).toBe(401);
    const used = await browser().post('/email-changes/undo', { token });
    expect([used.status, used.body.error.code]).toEqual([400, 'invalid_token']);

    const stopped = await signIn(browser(), old);
    expect([stopped.status, stopped.body.error.code]).toEqual([403, 'password_reset_required']);
    expect((await signIn(browser(), next)).body.error.code).toBe('invalid_credentials');

    await askReset(old);
    const reset = await linkToken(app.smtp, old);
    const checked = await browser().post('/password-resets/check', { token: reset });
    expect(checked.body.data.hold_until).toBe(undone.body.data.reset_hold_until);
    const held = await browser().post('/password-resets/confirm', { token: reset, new_password: NEW_PASSWORD });
    expect([held.status, held.body.error.code]).toEqual([409, 'reset_on_hold']);
    const retryAfter = Number(held.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(DAY / 1000 - 120);
    expect(retryAfter).toBeLessThanOrEqual(DAY / 1000);

    app.clock.advance(DAY);
    await askReset(old);
    const later = await linkToken(app.smtp, old);
    expect((await browser().post('/password-resets/confirm', { token: later, new_password: NEW_PASSWORD })).status).toBe(200);
    expect((await signIn(browser(), old, NEW_PASSWORD)).status).toBe(201);
  });

  it('answers the new POST routes with no 5xx whatever the body', async () => {
    const b = browser();
    await signUp(app, b);
    const bodies: unknown[] = [null, [], 'text', 42, {}, { email: 1 }, { email: 'x'.repeat(5000) }, { token: null }, { token: {} }, { token: 'a'.repeat(300) }, { token: 'acc_1.' + 'x'.repeat(43), new_password: [] }, { code: 123456 }, { code: '' }, { email: 'a@b.c', current_password: {} }];
    for (const path of ['/password-resets', '/password-resets/check', '/password-resets/confirm', '/email-changes/undo', '/me/email', '/me/email/verify']) {
      for (const body of bodies) {
        const answer = await b.call('POST', path, body, { ...RESET_CHALLENGE(), 'x-forwarded-for': `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` });
        expect([path, body, answer.status < 500]).toEqual([path, body, true]);
      }
    }
  });

  it('never writes a token, a code or a password to the logs or to any event', async () => {
    const events = await app.api.app.get<EventStore>(EVENT_STORE).readAll();
    expect(events.some((e) => e.type === 'PasswordResetRequested') && events.some((e) => e.type === 'EmailChangeUndone')).toBe(true);
    const log = JSON.stringify(events.map((e) => ({ stream: e.stream, data: e.data, metadata: e.metadata })));
    const text = logs.join('');
    expect(SECRETS.length).toBeGreaterThan(4);
    for (const secret of [...SECRETS, PASSWORD, NEW_PASSWORD]) {
      expect(log.includes(secret)).toBe(false);
      expect(text.includes(secret)).toBe(false);
    }
  });
});
