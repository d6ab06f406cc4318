import { PAYMENT_PAGES } from '@lib/payments';
import type { ScopedReadCache } from '@lib/projections';
import { eventually } from '../../support/eventually';
import { Client, STORE_KINDS, appPerSuite, businessWithKey, replicasPerSuite, startApp } from '../../support/fixtures';

const ids = (page: { body: { data: { id: string }[] } }) => page.body.data.map((p) => p.id);

/**
 * GET /payments pages kept in memory by a process that runs the projections (decision 0019,
 * addendum): the same page asked again is not read again until one of the business's payments
 * changes, and a change is always seen — made in this process (read your writes) or in another
 * one on the same database.
 */
describe.each(STORE_KINDS)('GET /payments pages kept in memory (%s)', (kind) => {
  const suite = appPerSuite(
    () => startApp(kind, { READ_CACHE_MAX_AGE_SECONDS: '3600' }),
    async (api) => ({ shop: (await businessWithKey(api, true)).client, other: (await businessWithKey(api, true, 'Other')).client }),
  );
  const stats = () => suite.api.app.get<ScopedReadCache>(PAYMENT_PAGES).stats;

  it('answers the same page again from memory; another business’s payment keeps it; the business’s own change is seen at once', async () => {
    const first = await suite.shop.createPayment({ metadata: { order: '1' } });
    const page = await suite.shop.get('/payments?limit=5');
    expect(ids(page)).toEqual([first.id]);
    const before = stats();
    const again = await suite.shop.get('/payments?limit=5');
    expect(again.body).toEqual(page.body);
    expect(stats().hits).toBe(before.hits + 1);
    expect(stats().misses).toBe(before.misses);

    await suite.other.createPayment({});
    expect((await suite.other.get('/payments?limit=5')).body.data).toHaveLength(1);
    const kept = stats();
    expect((await suite.shop.get('/payments?limit=5')).body).toEqual(page.body);
    expect(stats().hits).toBe(kept.hits + 1); // the other business's payment did not drop the shop's page

    const second = await suite.shop.createPayment({});
    expect(ids(await suite.shop.get('/payments?limit=5'))).toEqual([second.id, first.id]);
    expect((await suite.shop.post(`/payments/${first.id}/cancel`, {})).status).toBe(200);
    const after = await suite.shop.get('/payments?limit=5');
    expect(after.body.data.map((p: { id: string; status: string }) => [p.id, p.status])).toEqual([
      [second.id, 'pending'],
      [first.id, 'canceled'],
    ]);
    // filters and pages are kept apart: another query string is its own page
    expect(ids(await suite.shop.get('/payments?limit=5&status=canceled'))).toEqual([first.id]);
    expect(ids(await suite.shop.get('/payments?limit=1'))).toEqual([second.id]);
  });

  it('keeps no refused query string: the same mistake is refused again', async () => {
    for (let i = 0; i < 2; i++) {
      const refused = await suite.shop.get('/payments?limit=0');
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', field: 'limit' });
    }
  });
});

describe('GET /payments pages kept in memory, two processes running the projections on one PostgreSQL', () => {
  const suite = replicasPerSuite('listcache', [{ READ_CACHE_MAX_AGE_SECONDS: '3600' }, { READ_CACHE_MAX_AGE_SECONDS: '3600' }]); // only announcements drop a page here

  it('a page kept by one process shows what the other process wrote, once the log reaches it', async () => {
    const { secret_key } = await businessWithKey(suite.replicas[0], true);
    const [writer, reader] = suite.replicas.map((replica) => new Client(replica, secret_key));
    const first = await writer.createPayment({});
    await eventually(() => reader.get('/payments?limit=5'), (page) => ids(page).includes(first.id), { what: 'the first payment on the reader' });
    const kept = await reader.get('/payments?limit=5');
    expect((await reader.get('/payments?limit=5')).body).toEqual(kept.body); // kept

    const second = await writer.createPayment({});
    await eventually(() => reader.get('/payments?limit=5'), (page) => ids(page).join() === [second.id, first.id].join(), { what: 'the second payment on the reader' });
    expect((await writer.post(`/payments/${second.id}/cancel`, {})).status).toBe(200);
    await eventually(() => reader.get('/payments?limit=5'), (page) => page.body.data[0]?.status === 'canceled', { what: 'the cancel on the reader' });
  });
});
