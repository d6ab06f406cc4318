import { accountsAppForSuite, Browser, PASSWORD, expectConcurrentSignIns, expectPagedList, signIn, signUp } from './support';

/**
 * Sign-up, sign-in and the session acting for its business on PostgreSQL (decision 0034): the
 * same routes as accounts.e2e.ts, on the store a multi-process deployment uses.
 */
describe('accounts and sessions over HTTP on PostgreSQL', () => {
  const app = accountsAppForSuite({ kind: 'postgres', logs: false });

  it('signs up, signs in with the password, acts for the business, lists and ends sessions', async () => {
    const first = new Browser(app.api);
    const { email, businessId, session } = await signUp(app, first);
    const wrong = await signIn(new Browser(app.api), email, 'not the password at all');
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'invalid_credentials']);
    const second = new Browser(app.api);
    const signedIn = await signIn(second, email, PASSWORD);
    expect([signedIn.status, signedIn.body.data.method]).toEqual([201, 'password']);
    const business = await second.forBusiness(businessId).get('/business');
    expect([business.status, business.body.data.id]).toEqual([200, businessId]);
    const payment = await second.forBusiness(businessId).post('/payments', { amount: 1500, currency: 'USD' });
    expect(payment.status).toBe(201);
    expect((await first.forBusiness(businessId).get(`/payments/${payment.body.data.id}`)).status).toBe(200);
    const sessions = await second.get('/sessions');
    expect(sessions.body.data.map((s: { id: string; current: boolean }) => [s.id, s.current])).toEqual([
      [signedIn.body.data.id, true],
      [session.id, false],
    ]);
    // paged as every list, its cursor read by PostgreSQL (audit 2026-11-29, F2)
    await expectPagedList(second, '/sessions', []);
    expect((await second.delete(`/sessions/${session.id}`)).status).toBe(200);
    expect((await first.get('/me')).status).toBe(401);
    expect((await second.delete('/sessions/current')).status).toBe(200);
    expect((await second.get('/me')).status).toBe(401);
  });

  it('pages GET /api-keys on PostgreSQL: pages with and without a cursor, in turn on the same pool, all 200', async () => {
    const b = new Browser(app.api);
    const { businessId } = await signUp(app, b);
    // the statement of a page after a cursor differs from the first page's: it was once prepared under one name (500 on a connection that had the other)
    for (let i = 0; i < 12; i++) {
      const first = await b.forBusiness(businessId).get('/api-keys?limit=1');
      const next = await b.forBusiness(businessId).get(`/api-keys?limit=1&cursor=${first.body.next_cursor}`);
      expect([first.status, next.status, next.body.data?.length, next.body.has_more]).toEqual([200, 200, 1, false]);
    }
  });

  it('16 concurrent sign-ins of one person all succeed with 16 sessions, each one append at any revision, no concurrency conflict (issue #14; decision 0034)', async () => {
    await expectConcurrentSignIns(app, 16);
  });
});
