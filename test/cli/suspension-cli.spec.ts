/**
 * `payments businesses suspend|reinstate` (issue 19, B12), run as a process: through a running
 * server's admin endpoint (the app owns the embedded store in DATA_DIR), and directly on the
 * store (PostgreSQL) while an API process serves on the same database — there the API refuses
 * the business within its authentication cache's TTL (2 s).
 */
import { BUSINESS_STREAM, BusinessService } from '@lib/businesses';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { Client, businessWithKey, startTestApi } from '../support/fixtures';
import { cli, cliServerPerSuite } from '../support/cli';
import { eventually } from '../support/eventually';
import { createTestDatabase } from '../support/postgres';

const pay = (shop: Client) => shop.post('/payments', { amount: 1000, currency: 'USD' });

describe('CLI suspend and reinstate through a running server (embedded store, admin endpoint)', () => {
  const server = cliServerPerSuite();

  it('suspends (the next request is refused), refuses a second suspension, reinstates with --json, names the operator', async () => {
    const created = await businessWithKey(server.api, true, 'CLI Shop');
    const id = created.business.id;
    expect((await pay(created.client)).status).toBe(201); // the key's lookup is now cached in the server

    const suspended = await server.cli(['businesses', 'suspend', id, '--reason', 'Chargeback review', '--operator', 'ada']);
    expect(suspended).toMatchObject({ code: 0, stderr: '' });
    expect(suspended.stdout).toMatch(new RegExp(`^suspended ${id} \\(CLI Shop\\) at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\n$`));
    const refused = await pay(created.client);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'business_suspended']);
    expect((await created.client.get('/business')).body.data).toMatchObject({ status: 'suspended', suspended_at: expect.stringMatching(/Z$/) });

    const again = await server.cli(['businesses', 'suspend', id, '--reason', 'Twice']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/^business_suspended: Business biz_\w+ is already suspended\./);

    const reinstated = await server.cli(['businesses', 'reinstate', id, '--json']);
    expect(reinstated).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(reinstated.stdout)).toMatchObject({ kind: 'business', id, status: 'active', suspended_at: null });
    expect((await pay(created.client)).status).toBe(201);
    const notSuspended = await server.cli(['businesses', 'reinstate', id]);
    expect(notSuspended.code).not.toBe(0);
    expect(notSuspended.stderr).toMatch(/^invalid_request: .*not suspended/);

    const events = await server.api.app.get<EventStore>(EVENT_STORE).readStream(BUSINESS_STREAM.stream(id));
    expect(events.slice(-2)).toMatchObject([
      { type: 'BusinessSuspended', data: { reason: 'Chargeback review' }, metadata: { actor: { kind: 'operator', id: 'ada' } } },
      { type: 'BusinessReinstated', metadata: { actor: { kind: 'operator', id: expect.stringMatching(/\S/) } } }, // the OS user by default
    ]);
  });

  it('explains what went wrong: an unknown business, no reason, an empty or overlong reason', async () => {
    for (const args of [
      ['businesses', 'suspend', 'biz_doesnotexist', '--reason', 'x'],
      ['businesses', 'reinstate', 'biz_doesnotexist'],
    ]) {
      const run = await server.cli(args);
      expect(run.code).not.toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^not_found: No business biz_doesnotexist\./);
    }
    const { business } = await server.api.app.get(BusinessService).createBusiness({ name: 'P', simulated: true });
    const missing = await server.cli(['businesses', 'suspend', business.id]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--reason/);
    const blank = await server.cli(['businesses', 'suspend', business.id, '--reason', '  ']);
    expect(blank.stderr).toMatch(/^invalid_request: reason is required/);
    const long = await server.cli(['businesses', 'suspend', business.id, '--reason', 'x'.repeat(501)]);
    expect(long.stderr).toMatch(/^invalid_request: reason is at most 500 characters/);
    expect((await server.api.app.get(BusinessService).getBusiness(business.id))?.status).toBe('active');
  });
});

describe('CLI suspend and reinstate directly on PostgreSQL, with an API process on the same database', () => {
  it('the API refuses the suspended business within its cache TTL, and takes payments again after the reinstatement', async () => {
    const pg = await createTestDatabase('clisusp');
    const api = await startTestApi({ DATABASE_URL: pg.url, TRUSTED_PROXIES: 'loopback' });
    try {
      const created = await businessWithKey(api, true, 'Remote Shop');
      const id = created.business.id;
      expect((await pay(created.client)).status).toBe(201); // cached in the API process

      const suspended = await cli(['businesses', 'suspend', id, '--reason', 'Fraud', '--operator', 'bob', '--json'], { DATABASE_URL: pg.url });
      expect(suspended).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(suspended.stdout)).toMatchObject({ id, status: 'suspended', suspended_at: expect.stringMatching(/Z$/) });
      // the API process sees it once its authentication cache entry (2 s) expires; that bound is
      // proven with a fake clock in test/businesses/suspension.spec.ts, not timed here
      const refused = await eventually(() => pay(created.client), (r) => r.status === 403, { what: 'POST /payments refused', timeoutMs: 10_000 });
      expect(refused.body.error.code).toBe('business_suspended');
      expect((await created.client.get('/business')).body.data.status).toBe('suspended');

      const reinstated = await cli(['businesses', 'reinstate', id, '--operator', 'bob'], { DATABASE_URL: pg.url });
      expect(reinstated).toMatchObject({ code: 0, stderr: '' });
      expect(reinstated.stdout).toBe(`reinstated ${id} (Remote Shop)\n`);
      await eventually(() => pay(created.client), (r) => r.status === 201, { what: 'POST /payments taken again', timeoutMs: 10_000 });
      const events = await api.app.get<EventStore>(EVENT_STORE).readStream(BUSINESS_STREAM.stream(id));
      expect(events.slice(-2).map((e) => [e.type, e.metadata.actor])).toEqual([
        ['BusinessSuspended', { kind: 'operator', id: 'bob', name: null }],
        ['BusinessReinstated', { kind: 'operator', id: 'bob', name: null }],
      ]);
    } finally {
      await api.close();
      await pg.drop();
    }
  });
});
