import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { findProjector, rebuildProjection, verifyProjection } from '@lib/projections';
import { allProjectors } from '@lib/wiring';
import { Client } from '../support/client';
import { appPerSuite, businessWithKey, startApp } from '../support/fixtures';

/**
 * `projections rebuild` beside a serving app (PostgreSQL, where the CLI runs next to the service;
 * operators audit F1): the rebuild fills scratch tables and swaps them in, so readers never see a
 * projection empty or partly refilled.
 */
describe('a rebuild is invisible to the reads of a running app (PostgreSQL)', () => {
  const suite = appPerSuite(
    () => startApp('postgres'),
    async (api) => ({ shop: (await businessWithKey(api, true)).client }),
  );

  it('every read of a paid payment, its public receipt and the business answers 200 with the same body while every projection is rebuilt', async () => {
    const { shop } = suite as unknown as { shop: Client };
    // a paid payment, and some more of the business's history for the replay to go through
    const paid = await shop.createPayment({ amount: 12_345 });
    const checkout = await shop.openCheckout(paid);
    await shop.markSent(checkout.id, 'exact');
    await shop.advance(60);
    expect((await shop.payment(paid.id)).status).toBe('succeeded');
    for (let i = 0; i < 20; i++) await shop.createPayment({ amount: 100 + i, metadata: { n: String(i) } });

    const reads = {
      payment: () => shop.get(`/payments/${paid.id}`),
      business: () => shop.get('/business'),
      receipt: () => shop.as(null).get(`/public/receipts/${paid.id}`),
    };
    const normal = (body: unknown) => JSON.stringify(body, (key, value: unknown) => (key === 'now' ? undefined : value)); // test_clock.now is the wall clock moved
    const expected = new Map<string, string>();
    for (const [name, read] of Object.entries(reads)) {
      const answer = await read();
      expect({ name, status: answer.status }).toEqual({ name, status: 200 });
      expected.set(name, normal(answer.body));
    }

    const seen: string[] = [];
    let count = 0;
    let rebuilding = true;
    const poll = async (name: string, read: () => Promise<{ status: number; body: unknown }>) => {
      while (rebuilding) {
        const answer = await read();
        count++;
        if (answer.status !== 200 || normal(answer.body) !== expected.get(name)) seen.push(`${name} ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
      }
    };
    const polls = Object.entries(reads).map(([name, read]) => poll(name, read));

    const store = suite.api.app.get<EventStore>(EVENT_STORE);
    const db = suite.api.app.get<Database>(DATABASE);
    const projectors = allProjectors({ checkoutBaseUrl: suite.api.config.checkoutBaseUrl });
    try {
      for (const name of ['businesses', 'payments', 'events', 'accounts', 'customers']) {
        // small pages: the replay takes long enough for many reads to fall inside it
        await rebuildProjection(store, db, findProjector(name, projectors), { batchSize: 5 });
      }
    } finally {
      rebuilding = false;
      await Promise.all(polls);
    }
    expect(seen.slice(0, 5)).toEqual([]);
    expect(count).toBeGreaterThan(30);

    // the app goes on writing into the swapped-in tables, and they equal a replay
    const later = await shop.createPayment({ amount: 777 });
    expect((await shop.payment(later.id)).amount).toBe(777);
    for (const name of ['businesses', 'payments']) {
      expect({ name, differences: (await verifyProjection(store, db, findProjector(name, projectors))).differences }).toEqual({ name, differences: [] });
    }
  });
});
