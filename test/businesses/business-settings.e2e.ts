import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { BusinessService, ConfirmAlertEmailCommand, HasReceivedFundsQuery } from '@lib/businesses';
import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { eventually } from '../support/eventually';
import { TestApi, businessWithKey, clientWithNewKey, startTestApi } from '../support/fixtures';
import { TestSmtpServer, codeIn as codeOf, startSmtpServer } from '../support/smtp';

/**
 * PATCH /businesses/{id}, the alert e-mail and referrals over HTTP (issue 14.8, issue 19 B11,
 * decision 0035) on the real app sending through SMTP to a real SMTP server started here
 * (test/support/smtp.ts): every field of the business object, changes and their refusals,
 * isolation (another business's id is 404), test and restricted keys, the code e-mailed to a new
 * alert address and its confirmation (the use case through the CommandBus: the route is for
 * dashboard sessions, API keys get 403 session_required), alerts e-mailed from the log, referral
 * codes and their public lookup.
 */
describe('business settings, alert e-mail and referrals over HTTP', () => {
  let api: TestApi;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    api = await startTestApi({ SMTP_URL: smtp.url, MAIL_FROM: 'Payments <no-reply@example.test>' });
  });
  afterAll(async () => {
    await api?.close();
    await smtp?.close();
  });

  /** What arrived for an address (its messages, oldest first), read as the test reads: subject, text, html. */
  const mail = {
    get messages() {
      return smtp.messages.map((m) => ({ to: m.to[0], subject: m.subject, text: m.text ?? '', html: m.html ?? '', raw: m }));
    },
  };
  const codeIn = (to: string): string => {
    const message = [...smtp.messages].reverse().find((m) => m.to.includes(to));
    if (!message) throw new Error(`no code e-mailed to ${to}`);
    return codeOf(message);
  };
  const confirm = (businessId: string, code: string, actingFor = businessId) => api.app.get(CommandBus).execute(new ConfirmAlertEmailCommand(businessId, actingFor, code));

  it('GET /business shows every field of §2, the defaults and a generated referral code', async () => {
    const { client } = await businessWithKey(api, false);
    const business = (await client.get('/business')).body.data;
    expect(business).toMatchObject({
      kind: 'business',
      website: 'https://shop.example',
      support_email: 'help@shop.example',
      alert_email: null,
      pending_alert_email: null,
      status: 'active',
      suspended_at: null,
      email_alerts: true,
      product_updates: false,
      referral_code: expect.stringMatching(/^[a-z2-9]{8}$/),
    });
  });

  it('changes the settings, answers the business, records business.updated; no change, no event', async () => {
    const { client, business } = await businessWithKey(api, false);
    const changed = await client.patch(`/businesses/${business.id}`, { name: ' Acme Ltd ', website: 'https://acme.example', support_email: 'help@acme.example', email_alerts: false, product_updates: true });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: business.id, name: 'Acme Ltd', website: 'https://acme.example', support_email: 'help@acme.example', email_alerts: false, product_updates: true });
    expect((await client.get('/business')).body.data).toEqual(changed.body.data);
    const events = (await client.get('/events?type=business.updated')).body.data.filter((e: { subject: { id: string } }) => e.subject.id === business.id);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ name: 'Acme Ltd', product_updates: true });
    // blank is none; the same values again change nothing
    expect((await client.patch(`/businesses/${business.id}`, { website: '', support_email: null })).body.data).toMatchObject({ website: null, support_email: null });
    expect((await client.patch(`/businesses/${business.id}`, { email_alerts: false })).status).toBe(200);
    expect((await client.get('/events?type=business.updated')).body.data.filter((e: { subject: { id: string } }) => e.subject.id === business.id)).toHaveLength(2);
  });

  it('another business id, or no business id, is 404 not_found; nothing changes', async () => {
    const mine = await businessWithKey(api, false);
    const other = await businessWithKey(api, false, 'Other');
    for (const id of [other.business.id, 'biz_nothere', 'nope']) {
      const answer = await mine.client.patch(`/businesses/${id}`, { name: 'Taken over' });
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('not_found');
      // the confirmation refuses API keys before anything else (dashboard sessions only)
      expect((await mine.client.post(`/businesses/${id}/alert-email/confirm`, { code: '123456' })).body.error.code).toBe('session_required');
    }
    expect((await other.client.get('/business')).body.data.name).toBe('Other');
  });

  it('refuses malformed changes with 400 invalid_request naming the field', async () => {
    const { client, business } = await businessWithKey(api, false);
    const cases: [Record<string, unknown>, string | null][] = [
      [{ name: '  ' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ website: 'not a url' }, 'website'],
      [{ support_email: 'nope' }, 'support_email'],
      [{ email_alerts: 'yes' }, 'email_alerts'],
      [{ alert_email: 'nope' }, 'alert_email'],
      [{ alert_email: null }, 'alert_email'],
      [{ referral_code: 'a' }, 'referral_code'],
      [{ referral_code: 'bad code' }, 'referral_code'],
      [{ colour: 'red' }, 'colour'],
      [{}, null],
    ];
    for (const [body, field] of cases) {
      const answer = await client.patch(`/businesses/${business.id}`, body);
      expect([JSON.stringify(body), answer.status, answer.body.error]).toEqual([JSON.stringify(body), 400, expect.objectContaining({ code: 'invalid_request', field })]);
    }
  });

  it('test keys on a live business cannot change what customers see (403 test_mode_unavailable); restricted keys need business write', async () => {
    const live = await businessWithKey(api, false);
    const test = await clientWithNewKey(api, { businessId: live.business.id, kind: 'secret', mode: 'test' });
    for (const body of [{ name: 'Test' }, { website: 'https://x.example' }, { support_email: 'x@x.example' }]) {
      const refused = await test.patch(`/businesses/${live.business.id}`, body);
      expect([refused.status, refused.body.error.code]).toEqual([403, 'test_mode_unavailable']);
    }
    expect((await test.patch(`/businesses/${live.business.id}`, { email_alerts: false, product_updates: true })).status).toBe(200);
    const reader = await clientWithNewKey(api, { businessId: live.business.id, kind: 'restricted', mode: 'live', permissions: 'business:read' });
    expect((await reader.patch(`/businesses/${live.business.id}`, { name: 'R' })).body.error.code).toBe('permission_denied');
    const writer = await clientWithNewKey(api, { businessId: live.business.id, kind: 'restricted', mode: 'live', permissions: 'business:write' });
    expect((await writer.patch(`/businesses/${live.business.id}`, { name: 'Written' })).body.data.name).toBe('Written');
    // a simulated business takes its test keys everywhere
    const sandbox = await businessWithKey(api, true);
    expect((await sandbox.client.patch(`/businesses/${sandbox.business.id}`, { name: 'Sandbox 2' })).status).toBe(200);
  });

  it('a new alert address: pending, a 6-digit code e-mailed (never stored in clear), one a minute; confirmed, alerts go there', async () => {
    const { client, business } = await businessWithKey(api, false);
    const to = `ops+${business.id}@acme.example`;
    const asked = await client.patch(`/businesses/${business.id}`, { alert_email: to });
    expect(asked.status).toBe(200);
    expect(asked.body.data).toMatchObject({ alert_email: null, pending_alert_email: to });
    const code = codeIn(to);
    const message = mail.messages.find((m) => m.to === to)!;
    expect(message.text).toContain(code);
    expect(message.html).toContain(code);
    expect(message.subject).toMatch(/alert address/);

    const again = await client.patch(`/businesses/${business.id}`, { alert_email: to });
    expect(again.status).toBe(429);
    expect(again.body.error).toMatchObject({ code: 'too_many_emails', field: 'alert_email' });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // the route is for dashboard sessions: an API key gets 403 session_required
    const byKey = await client.post(`/businesses/${business.id}/alert-email/confirm`, { code });
    expect([byKey.status, byKey.body.error.code]).toEqual([403, 'session_required']);

    // the use case: wrong, then right (spaces ignored); another business's id is not found
    await expect(confirm(business.id, code === '000000' ? '111111' : '000000')).rejects.toMatchObject({ code: 'invalid_code', field: 'code' });
    const other = await businessWithKey(api, false, 'Other');
    await expect(confirm(business.id, code, other.business.id)).rejects.toMatchObject({ code: 'not_found' });
    const done = await confirm(business.id, `${code.slice(0, 3)} ${code.slice(3)}`);
    expect(done).toMatchObject({ alert_email: to, pending_alert_email: null });
    expect((await client.get('/business')).body.data).toMatchObject({ alert_email: to, pending_alert_email: null });
    await expect(confirm(business.id, code)).rejects.toMatchObject({ code: 'verification_expired' });
    const updated = (await client.get('/events?type=business.updated')).body.data.filter((e: { subject: { id: string } }) => e.subject.id === business.id);
    expect(updated[0].data).toMatchObject({ alert_email: to, pending_alert_email: null });

    // the code is in no stored event
    const db = api.app.get<Database>(DATABASE);
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM es_events WHERE stream_id = $1 AND data::text LIKE $2`, [`business-${business.id}`, `%${code}%`]);
    expect(Number(rows[0].n)).toBe(0);
  });

  it('5 wrong codes: 429 too_many_attempts with Retry-After, even for the right one', async () => {
    const { client, business } = await businessWithKey(api, false);
    const to = `five+${business.id}@acme.example`;
    await client.patch(`/businesses/${business.id}`, { alert_email: to });
    const code = codeIn(to);
    const wrong = code === '999999' ? '888888' : '999999';
    for (let i = 0; i < 5; i++) await expect(confirm(business.id, wrong)).rejects.toMatchObject({ code: 'invalid_code' });
    const locked = await confirm(business.id, code).catch((error: unknown) => error);
    expect(locked).toMatchObject({ code: 'too_many_attempts', status: 429 });
    expect(Number((locked as { headers: Record<string, string> }).headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  /** Runs `body` with the wall clock under the test's hand (`jump(ms)` moves it on); only Date is faked. */
  async function withClock(body: (jump: (ms: number) => void) => Promise<void>): Promise<void> {
    jest.useFakeTimers({
      advanceTimers: true,
      doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'requestAnimationFrame', 'cancelAnimationFrame', 'requestIdleCallback', 'cancelIdleCallback', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
    });
    try {
      await body((ms) => jest.setSystemTime(Date.now() + ms));
    } finally {
      jest.useRealTimers();
    }
  }

  it('5 wrong codes: Retry-After until the dead code expires, then 400 code_expired rather than 429; a new code unlocks (audit lim F1, 2026-11-30)', async () => {
    await withClock(async (jump) => {
      const { client, business } = await businessWithKey(api, false);
      const to = `lockra+${business.id}@acme.example`;
      expect((await client.patch(`/businesses/${business.id}`, { alert_email: to })).status).toBe(200);
      const code = codeIn(to);
      const wrong = code === '999999' ? '888888' : '999999';
      for (let i = 0; i < 5; i++) await expect(confirm(business.id, wrong)).rejects.toMatchObject({ code: 'invalid_code' });
      jump(60_000);
      const locked = (await confirm(business.id, code).catch((error: unknown) => error)) as { code: string; message: string; headers: Record<string, string> };
      expect(locked).toMatchObject({ code: 'too_many_attempts', message: expect.stringMatching(/ask for a new code/) });
      const wait = Number(locked.headers['retry-after']);
      expect(wait).toBeGreaterThanOrEqual(14 * 60 - 5);
      expect(wait).toBeLessThanOrEqual(14 * 60);
      jump(wait * 1000);
      await expect(confirm(business.id, code)).rejects.toMatchObject({ code: 'code_expired', field: 'code' });
      // a new code (the pending address again) unlocks
      expect((await client.patch(`/businesses/${business.id}`, { alert_email: to })).status).toBe(200);
      const fresh = codeIn(to);
      expect(await confirm(business.id, fresh)).toMatchObject({ alert_email: to, pending_alert_email: null });
    });
  });

  it('a new code within the minute with the address’s hourly budget spent: Retry-After is the longer wait (audit lim F2, 2026-11-30)', async () => {
    await withClock(async (jump) => {
      const to = `budgetra+${Date.now()}@acme.example`;
      for (let i = 0; i < 4; i++) {
        const { client, business } = await businessWithKey(api, false);
        expect((await client.patch(`/businesses/${business.id}`, { alert_email: to })).status).toBe(200);
      }
      const { client, business } = await businessWithKey(api, false);
      expect((await client.patch(`/businesses/${business.id}`, { alert_email: to })).status).toBe(200); // the 5th e-mail of the hour
      jump(1_000);
      const soon = await client.patch(`/businesses/${business.id}`, { alert_email: to });
      expect([soon.status, soon.body.error]).toEqual([429, expect.objectContaining({ code: 'too_many_emails', field: 'alert_email' })]);
      const wait = Number(soon.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(3500); // the hour's budget, not the minute's 59
      expect(wait).toBeLessThanOrEqual(3600);
      jump(61_000);
      const still = await client.patch(`/businesses/${business.id}`, { alert_email: to });
      expect([still.status, Math.abs(Number(still.headers.get('retry-after')) - (wait - 61)) <= 1]).toEqual([429, true]);
      expect(smtp.messages.filter((m) => m.to.includes(to))).toHaveLength(5);
    });
  });

  it('e-mails per address (§8: 5 an hour): the 6th code to one address, from any business, is 429 too_many_emails and sends nothing', async () => {
    const to = `shared+${Date.now()}@acme.example`;
    for (let i = 0; i < 5; i++) {
      const { client, business } = await businessWithKey(api, false);
      expect((await client.patch(`/businesses/${business.id}`, { alert_email: to })).status).toBe(200);
    }
    const sixth = await businessWithKey(api, false);
    const refused = await sixth.client.patch(`/businesses/${sixth.business.id}`, { alert_email: to });
    expect([refused.status, refused.body.error]).toEqual([429, expect.objectContaining({ code: 'too_many_emails', field: 'alert_email' })]);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(smtp.messages.filter((m) => m.to.includes(to))).toHaveLength(5);
    expect((await sixth.client.get('/business')).body.data.pending_alert_email).toBeNull();
  });

  it('mail down: 503 email_unavailable and nothing pending', async () => {
    const { client, business } = await businessWithKey(api, false);
    smtp.refuse();
    try {
      const answer = await client.patch(`/businesses/${business.id}`, { alert_email: 'down@acme.example', product_updates: true });
      expect([answer.status, answer.body.error.code]).toEqual([503, 'email_unavailable']);
    } finally {
      smtp.accept();
    }
    expect((await client.get('/business')).body.data).toMatchObject({ pending_alert_email: null, product_updates: false });
  });

  it('e-mails an alert to the confirmed address when a payment needs review (once), not when alerts are off', async () => {
    const shop = await businessWithKey(api, true);
    const to = `alerts+${shop.business.id}@acme.example`;
    await shop.client.patch(`/businesses/${shop.business.id}`, { alert_email: to });
    await confirm(shop.business.id, codeIn(to));
    const needsReview = async (fields: Record<string, unknown> = {}) => {
      const payment = await shop.client.createPayment(fields);
      const checkout = await shop.client.openCheckout(payment);
      expect((await shop.client.as(null).post(`/checkouts/${checkout.id}/cancel`)).status).toBe(200);
      expect((await shop.client.as(null).post(`/checkouts/${checkout.id}/claim`, { tx_hash: '0x' + 'ab'.repeat(32) })).status).toBe(200);
      return payment.id as string;
    };
    const first = await needsReview({ amount: 5050 });
    const alert = await eventually(() => mail.messages.find((m) => m.to === to && m.subject.includes(first)));
    expect(alert.text).toContain('needs your review');
    expect(alert.text).toContain(`${first}, 50.50 USD.`); // the currency's own minor digits (minorToDecimal: no float, no assumed 2)
    const db = api.app.get<Database>(DATABASE);
    await eventually(async () => ((await db.query(`SELECT * FROM business_alert_emails WHERE subject_id = $1 AND sent_at IS NOT NULL`, [first])).rows.length === 1 ? true : undefined)); // marked sent after the SMTP answer

    await shop.client.patch(`/businesses/${shop.business.id}`, { email_alerts: false });
    const second = await needsReview();
    // alerts on again: the third review's alert arriving means the reactor passed the second (the log's order), which sent nothing
    const third = await (async () => {
      await shop.client.patch(`/businesses/${shop.business.id}`, { email_alerts: true });
      return needsReview();
    })();
    await eventually(() => mail.messages.find((m) => m.subject.includes(third)));
    expect(mail.messages.filter((m) => m.subject.includes(second))).toHaveLength(0);
    expect(mail.messages.filter((m) => m.subject.includes(first))).toHaveLength(1);
  });

  it('referral codes: set and changed until a wallet exists, unique, looked up in public, recorded at sign-up', async () => {
    const referrer = await businessWithKey(api, false, 'Referrer Co');
    const code = `ref-${referrer.business.id.slice(-8).toLowerCase()}`;
    const old = referrer.business.referral_code!;
    const set = await referrer.client.patch(`/businesses/${referrer.business.id}`, { referral_code: code.toUpperCase() });
    expect(set.status).toBe(200);
    expect(set.body.data.referral_code).toBe(code);

    const lookup = await referrer.client.as(null).get(`/public/referrals/${code}`);
    expect(lookup.status).toBe(200);
    expect(lookup.body.data).toEqual({ kind: 'referral', code, referrer: { name: 'Referrer Co' }, fee_share_bps: 1000 });
    expect((await referrer.client.as(null).get(`/public/referrals/${old}`)).status).toBe(404);
    expect((await referrer.client.as(null).get('/public/referrals/nobody-has-this')).body.error.code).toBe('not_found');

    const other = await businessWithKey(api, false, 'Other');
    const taken = await other.client.patch(`/businesses/${other.business.id}`, { referral_code: code });
    expect([taken.status, taken.body.error]).toEqual([409, expect.objectContaining({ code: 'referral_code_taken', field: 'referral_code' })]);
    // the old code was released: another business may take it
    expect((await other.client.patch(`/businesses/${other.business.id}`, { referral_code: old })).body.data.referral_code).toBe(old);

    // a simulated business has its wallet from the start: its code is locked
    const sandbox = await businessWithKey(api, true);
    const locked = await sandbox.client.patch(`/businesses/${sandbox.business.id}`, { referral_code: `sb-${code}` });
    expect([locked.status, locked.body.error.code]).toEqual([409, 'referral_locked']);

    // a business created with the code records its referrer
    const service = api.app.get(BusinessService);
    const referred = await service.createBusiness({ name: 'Referred', simulated: false, referral_code: ` ${code.toUpperCase()} ` });
    const db = api.app.get<Database>(DATABASE);
    expect((await db.query<{ referred_by: string }>(`SELECT referred_by FROM businesses WHERE id = $1`, [referred.business.id])).rows[0].referred_by).toBe(referrer.business.id);
    await expect(service.createBusiness({ name: 'Nobody', simulated: false, referral_code: 'no-such-code' })).rejects.toMatchObject({ code: 'invalid_request', field: 'referral_code' });
    expect(await api.app.get(QueryBus).execute(new HasReceivedFundsQuery(referrer.business.id))).toBe(false);
  });
});
