import { AccountsTestApp, Browser, PASSWORD, signUp, startAccountsApp } from '../accounts/support';
import { eventually } from '../support/eventually';
import { Receiver, startReceiver } from '../webhooks/support';

/**
 * Issue #14 item 8 end to end with a dashboard session (decision 0035): PATCH /businesses/{id}
 * with a new alert_email → pending and a 6-digit code e-mailed through a real SMTP server; POST
 * /businesses/{id}/alert-email/confirm with the session cookie (spaces in the code ignored) → the
 * address set, nothing pending, `business.updated` in the events and delivered to a webhook
 * endpoint; and §8's "3 new alert e-mails per person per hour across all businesses" spent from
 * two businesses of one person (429 too_many_emails), not by an API key (no person) nor by
 * another person.
 */
describe('the alert e-mail with a dashboard session', () => {
  let app: AccountsTestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    app = await startAccountsApp('embedded', { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  const patch = (b: Browser, businessId: string, body: unknown) => b.call('PATCH', `/businesses/${businessId}`, body, { 'service-business': businessId });

  it('a new address: pending, a 6-digit code e-mailed; confirmed with the session (spaces ignored): set, business.updated event and webhook', async () => {
    const b = new Browser(app.api);
    const person = await signUp(app, b);
    const shop = b.forBusiness(person.businessId);
    const hook = await shop.post('/webhooks', { url: receiver.url, event_types: ['business.updated'] });
    expect(hook.status).toBe(201);

    const to = `alerts+${person.businessId.toLowerCase()}@shop.example`;
    const asked = await patch(b, person.businessId, { alert_email: to });
    expect([asked.status, asked.body.data]).toEqual([200, expect.objectContaining({ id: person.businessId, alert_email: null, pending_alert_email: to })]);
    const code = await app.smtp.code(to);
    expect(code).toMatch(/^\d{6}$/);

    // the confirmation names its business: another business the person acts for does not confirm this one
    const other = await b.post('/businesses', { name: 'Other Shop', simulated: true });
    const elsewhere = await b.post(`/businesses/${person.businessId}/alert-email/confirm`, { code }, { 'service-business': other.body.data.id });
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([404, 'not_found']);
    const wrong = await shop.post(`/businesses/${person.businessId}/alert-email/confirm`, { code: code === '000000' ? '111111' : '000000' });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.field]).toEqual([400, 'invalid_code', 'code']);

    const confirmed = await shop.post(`/businesses/${person.businessId}/alert-email/confirm`, { code: ` ${code.slice(0, 3)} ${code.slice(3)} ` });
    expect([confirmed.status, confirmed.body.data]).toEqual([200, expect.objectContaining({ id: person.businessId, alert_email: to, pending_alert_email: null })]);
    expect((await shop.get('/business')).body.data).toMatchObject({ alert_email: to, pending_alert_email: null });
    const again = await shop.post(`/businesses/${person.businessId}/alert-email/confirm`, { code });
    expect([again.status, again.body.error.code]).toEqual([409, 'verification_expired']);

    const events = (await shop.get('/events?type=business.updated')).body.data as { id: string; data: Record<string, unknown> }[];
    const event = events.find((e) => e.data.alert_email === to);
    expect(event?.data).toMatchObject({ id: person.businessId, alert_email: to, pending_alert_email: null });
    const delivered = await eventually(
      () => receiver.requests.map((r) => JSON.parse(r.body) as { id: string; type: string; data: Record<string, unknown> }).find((e) => e.id === event!.id),
      { what: 'business.updated delivered to the endpoint' },
    );
    expect(delivered).toMatchObject({ type: 'business.updated', data: { id: person.businessId, alert_email: to, pending_alert_email: null } });
  });

  it('concurrent PATCHes of one new address: one 200, the rest 429, exactly one e-mail, its code confirms, and the refused ones spent no limits (audit F1, 2026-11-29)', async () => {
    const b = new Browser(app.api);
    const person = await signUp(app, b);
    const shop = b.forBusiness(person.businessId);
    const to = `conc+${person.businessId.toLowerCase()}@shop.example`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => patch(b, person.businessId, { alert_email: to })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 429, 429, 429, 429, 429]);
    for (const refused of answers.filter((a) => a.status === 429)) expect(refused.body.error.code).toBe('too_many_emails');
    // every request has answered, so every e-mail it sent has gone: exactly one, the winner's
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(app.smtp.countTo(to)).toBe(1);
    const code = await app.smtp.code(to);
    const confirmed = await shop.post(`/businesses/${person.businessId}/alert-email/confirm`, { code });
    expect([confirmed.status, confirmed.body.data?.alert_email]).toEqual([200, to]);
    // the refused requests gave back what they took: the person has started one new alert e-mail this hour, so two more may start
    for (const n of [1, 2]) {
      const more = await patch(b, person.businessId, { alert_email: `more${n}+${person.businessId.toLowerCase()}@shop.example` });
      expect([n, more.status]).toEqual([n, 200]);
    }
  });

  it('the pending address again is a new code (a minute after the last), not a new alert e-mail: with the 3 started it is sent, also after 5 wrong tries, which a new code resets', async () => {
    const b = new Browser(app.api);
    const person = await signUp(app, b);
    const shop = b.forBusiness(person.businessId);
    const address = (n: number) => `resend${n}+${person.businessId.toLowerCase()}@shop.example`;
    const confirm = (code: string) => shop.post(`/businesses/${person.businessId}/alert-email/confirm`, { code });
    const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');

    // the business's own Date (the decider's time) moves with the test: only Date is faked
    jest.useFakeTimers({
      advanceTimers: true,
      doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'requestAnimationFrame', 'cancelAnimationFrame', 'requestIdleCallback', 'cancelIdleCallback', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
    });
    const aMinuteLater = () => jest.setSystemTime(Date.now() + 61_000);
    try {
      // 3 new alert e-mails started: the per-person budget of the hour is spent
      for (const n of [1, 2, 3]) expect((await patch(b, person.businessId, { alert_email: address(n) })).status).toBe(200);
      await app.smtp.code(address(3));
      const started = await patch(b, person.businessId, { alert_email: address(4) });
      expect([started.status, started.body.error?.code]).toEqual([429, 'too_many_emails']);

      // the pending address again within the minute: the decider's gap, not the per-person budget
      const soon = await patch(b, person.businessId, { alert_email: address(3) });
      expect([soon.status, soon.body.error?.code, soon.body.error?.message]).toEqual([429, 'too_many_emails', expect.stringMatching(/wait a minute/)]);
      expect(Number(soon.headers.get('retry-after'))).toBeLessThanOrEqual(60);

      // a minute later: a new code for it, e-mailed
      aMinuteLater();
      const again = await patch(b, person.businessId, { alert_email: address(3) });
      expect([again.status, again.body.data?.pending_alert_email]).toEqual([200, address(3)]);
      expect(await app.smtp.code(address(3), 2)).toMatch(/^\d{6}$/);
      expect(app.smtp.countTo(address(3))).toBe(2);

      // 5 wrong tries lock the code until a new one …
      const second = await app.smtp.code(address(3), 2);
      for (let i = 0; i < 5; i++) expect((await confirm(wrongFor(second))).status).toBe(400);
      const locked = await confirm(second);
      expect([locked.status, locked.body.error.code]).toEqual([429, 'too_many_attempts']);
      // … which the same address gives a minute after the last code, still starting nothing
      aMinuteLater();
      const fresh = await patch(b, person.businessId, { alert_email: address(3) });
      expect([fresh.status, fresh.body.data?.pending_alert_email]).toEqual([200, address(3)]);
      const third = await app.smtp.code(address(3), 3);
      // the new code has its own 5 tries (the count starts again): 4 wrong ones, then it confirms
      if (second !== third) expect((await confirm(second)).body.error?.code).toBe('invalid_code'); // the earlier code is void
      for (let i = second !== third ? 1 : 0; i < 4; i++) expect((await confirm(wrongFor(third))).body.error?.code).toBe('invalid_code');
      const confirmed = await confirm(third);
      expect([confirmed.status, confirmed.body.data?.alert_email]).toEqual([200, address(3)]);

      // the per-person budget still holds for a new address: 3 started, resends not among them
      const fourth = await patch(b, person.businessId, { alert_email: address(4) });
      expect([fourth.status, fourth.body.error?.code]).toEqual([429, 'too_many_emails']);
      expect(app.smtp.countTo(address(4))).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('3 new alert e-mails per person per hour across all businesses: the 4th, from either business, is 429 too_many_emails; a key or another person is not held', async () => {
    const b = new Browser(app.api);
    const person = await signUp(app, b);
    const first = person.businessId;
    const second = (await b.post('/businesses', { name: 'Second Shop', simulated: true })).body.data.id as string;
    const address = (n: number) => `limit${n}+${first.toLowerCase()}@shop.example`;

    expect((await patch(b, first, { alert_email: address(1) })).status).toBe(200);
    expect((await patch(b, second, { alert_email: address(2) })).status).toBe(200);
    expect((await patch(b, first, { alert_email: address(3) })).status).toBe(200);
    for (const n of [1, 2, 3]) await app.smtp.code(address(n)); // each e-mailed its code

    const refused = await patch(b, second, { alert_email: address(4) });
    expect([refused.status, refused.body.error]).toEqual([429, expect.objectContaining({ code: 'too_many_emails', field: 'alert_email' })]);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(app.smtp.countTo(address(4))).toBe(0);
    expect((await b.forBusiness(second).get('/business')).body.data.pending_alert_email).toBe(address(2)); // unchanged
    const fromFirst = await patch(b, first, { alert_email: address(5) });
    expect([fromFirst.status, fromFirst.body.error.code]).toEqual([429, 'too_many_emails']);

    // an API key of the business is no person: only the address budget applies
    expect((await b.post('/sessions/current/step-up', { current_password: PASSWORD })).status).toBe(200);
    const secret = (await b.forBusiness(second).post('/api-keys', { type: 'secret', mode: 'test' })).body.data.secret as string;
    const byKey = await fetch(`${app.api.base}/businesses/${second}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ alert_email: address(6) }),
    });
    expect(byKey.status).toBe(200);
    await app.smtp.code(address(6));

    // another person has budget of their own
    const c = new Browser(app.api);
    const someone = await signUp(app, c);
    expect((await patch(c, someone.businessId, { alert_email: address(7) })).status).toBe(200);
  });
});
