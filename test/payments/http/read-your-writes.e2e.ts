import { Client as PgClient } from 'pg';
import { ProjectionRunner } from '@lib/projections';
import { eventually } from '../../support/eventually';
import { appPerSuite, businessWithKey, startApp } from '../../support/fixtures';

/**
 * POST /payments answers from the payment's own events without waiting for the projections
 * (decision 0019), and read your writes still holds: the next GET of that business waits for the
 * projection to have the payment. Shown on PostgreSQL, where the test can hold the projections
 * back from outside by locking their checkpoint rows (the embedded store admits one process).
 */
describe('read your writes when POST /payments does not wait for the projections (PostgreSQL)', () => {
  const suite = appPerSuite(
    () => startApp('postgres'),
    async (api) => ({ shop: (await businessWithKey(api, true)).client, other: (await businessWithKey(api, true, 'Other')).client }),
  );

  /** Holds every projection back until `release` (their batches wait for the checkpoint rows). */
  async function holdProjections(): Promise<{ release(): Promise<void>; rows(sql: string, params: unknown[]): Promise<unknown[]> }> {
    const lock = new PgClient({ connectionString: suite.api.config.databaseUrl });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('SELECT name FROM projection_checkpoints FOR UPDATE');
    return {
      rows: async (sql, params) => (await lock.query(sql, params)).rows,
      release: async () => {
        await lock.query('COMMIT');
        await lock.end();
      },
    };
  }

  /** Records the scopes of the reads that reached the read barrier (and had something to wait for). */
  function watchBarrier(): { scopes: (string | null)[]; restore(): void } {
    const runner = suite.api.app.get(ProjectionRunner);
    const scopes: (string | null)[] = [];
    const readBarrier = runner.readBarrier.bind(runner);
    runner.readBarrier = (scope, timeoutMs) => (scopes.push(scope), readBarrier(scope, timeoutMs));
    return { scopes, restore: () => void (runner.readBarrier = readBarrier) };
  }

  it('answers 201 while the projections are held back; the next GET waits for them and shows the same payment', async () => {
    const barrier = watchBarrier();
    const held = await holdProjections();
    let released = false;
    try {
      const created = await suite.shop.createPayment({ metadata: { order: '42' }, customer_email: 'ann@example.com', description: 'Held back' });
      expect(created).toMatchObject({ kind: 'payment', status: 'pending', metadata: { order: '42' }, description: 'Held back' });
      // the answer did not come from the read model: it has no row for the payment yet
      expect(await held.rows('SELECT id FROM payments WHERE id = $1', [created.id])).toEqual([]);
      const one = suite.shop.get(`/payments/${created.id}`);
      const list = suite.shop.get('/payments?limit=5');
      await eventually(() => barrier.scopes.length >= 2, { what: 'both GETs are at the read barrier' });
      // another business has nothing noted: its reads do not wait for the held projections
      const otherList = await suite.other.get('/payments?limit=5');
      expect(otherList.status).toBe(200);
      expect(otherList.body.data).toEqual([]);
      expect(barrier.scopes).toHaveLength(2);
      expect(barrier.scopes.every((s) => s !== null && s.startsWith('biz_'))).toBe(true);

      await held.release();
      released = true;
      const [read, page] = await Promise.all([one, list]);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual(created);
      expect(page.body.data.map((p: { id: string }) => p.id)).toContain(created.id);
    } finally {
      barrier.restore();
      if (!released) await held.release();
    }
  });

  it('a public read by the payment code waits for the held projections too (POST /checkouts with payment_code)', async () => {
    const barrier = watchBarrier();
    const held = await holdProjections();
    let released = false;
    try {
      const created = await suite.shop.createPayment();
      const code = created.url.split('/').pop();
      const opening = suite.shop.as(null).post('/checkouts', { payment_code: code, asset: 'USDC', network: 'ethereum' }, { 'idempotency-key': `ryw-${created.id}` });
      await eventually(() => barrier.scopes.includes(null), { what: 'the public request is at the read barrier' });
      await held.release();
      released = true;
      const opened = await opening;
      expect(opened.status).toBe(201);
      expect(opened.body.data).toMatchObject({ kind: 'checkout', payment_id: created.id });
    } finally {
      barrier.restore();
      if (!released) await held.release();
    }
  });
});
