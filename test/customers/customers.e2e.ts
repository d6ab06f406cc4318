import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { findProjector, verifyProjection } from '@lib/projections';
import { allProjectors } from '@lib/wiring';
import { appPerSuite, businessWithKey, clientWithNewKey, expectNotFoundEverywhere, expectQueriesRefused, expectTwoPages, startTestApi } from '../support/fixtures';
import { appWithReceiver, receivedEvents, subscribedBusiness } from '../webhooks/support';

/**
 * Customers over HTTP (issue #13, decision 0029) on the real app: POST/GET/PATCH /customers,
 * block and unblock, the list and its cursor, customers known only from payments, the id a
 * payment's customer_email names (kept across an e-mail change), customer_blocked on POST
 * /payments and POST /checkouts, test keys on a live business, other businesses' customers,
 * restricted keys, GET /payments?customer_id, the stats after a succeeded payment, and the
 * customer.* events (in GET /events, and delivered to an endpoint).
 */
describe('customers over HTTP', () => {
  const suite = appPerSuite(() => startTestApi());

  const code = (payment: { url: string }) => payment.url.split('/').pop()!;

  it('creates a customer (201), reads it back, and refuses its e-mail to a second one in any case (409 customer_exists)', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const created = await client.post('/customers', { email: 'Ann@Example.com', name: ' Ann Lee ', note: 'VIP' });
    expect(created.status).toBe(201);
    const customer = created.body.data;
    expect(customer).toEqual({
      kind: 'customer',
      id: expect.stringMatching(/^cst_[A-Za-z0-9]+$/),
      name: 'Ann Lee',
      email: 'Ann@Example.com',
      blocked: false,
      note: 'VIP',
      stats: { payments_count: 0, incomplete_count: 0, volume: { amount: 0, currency: null }, average: { amount: 0, currency: null }, last_payment_at: null, preferred_rail: null },
      created_at: expect.stringMatching(/Z$/),
      updated_at: customer.created_at,
    });
    expect((await client.get(`/customers/${customer.id}`)).body.data).toEqual(customer);
    for (const email of ['Ann@Example.com', 'ann@example.com', ' ANN@EXAMPLE.COM ']) {
      const again = await client.post('/customers', { email });
      expect({ email, status: again.status, code: again.body.error?.code, field: again.body.error?.field }).toEqual({ email, status: 409, code: 'customer_exists', field: 'email' });
    }
    // the payment that names the address names this customer
    const payment = await client.createPayment({ customer_email: 'ann@EXAMPLE.com' });
    expect(payment.customer_id).toBe(customer.id);
    const after = (await client.get(`/customers/${customer.id}`)).body.data;
    expect(after.stats).toMatchObject({ payments_count: 1, incomplete_count: 1, volume: { amount: 0, currency: 'USD' }, last_payment_at: payment.created_at, preferred_rail: null });
  });

  it('refuses a client mistake with 400 invalid_request naming the field', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const cases: [unknown, string][] = [
      [{}, 'email'],
      [{ email: 'not-an-address' }, 'email'],
      [{ email: 42 }, 'email'],
      [{ email: 'a@b.example', name: 'x'.repeat(201) }, 'name'],
      [{ email: 'a@b.example', note: null }, 'note'],
      [{ email: 'a@b.example', color: 'red' }, 'color'],
    ];
    for (const [body, field] of cases) {
      const answer = await client.post('/customers', body);
      expect({ body, status: answer.status, code: answer.body.error?.code, field: answer.body.error?.field }).toEqual({ body, status: 400, code: 'invalid_request', field });
    }
    // a missing e-mail and a number are told apart
    expect((await client.post('/customers', {})).body.error.message).toBe('email is required.');
    expect((await client.post('/customers', { email: 42 })).body.error.message).toBe('email must be a string.');
    const patch = await client.patch(`/customers/cst_nobody`, { email: 'nope' });
    expect(patch.status).toBe(400);
    expect(patch.body.error).toMatchObject({ code: 'invalid_request', field: 'email' });
    const known = await client.createPayment({ customer_email: 'nothing@shop.example' });
    const nothing = await client.patch(`/customers/${known.customer_id}`, {});
    expect([nothing.status, nothing.body.error?.code]).toEqual([400, 'invalid_request']);
    expect((await client.get('/customers')).body.data.map((c: { email: string }) => c.email)).toEqual(['nothing@shop.example']);
  });

  it('a payment with a new customer_email makes a customer appear (name null); POST /customers with that address is 409', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const payment = await client.createPayment({ customer_email: 'Bob@Shop.example' });
    expect(payment.customer_id).toMatch(/^cst_/);
    const listed = await client.get('/customers');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(listed.body.data).toHaveLength(1);
    const customer = listed.body.data[0];
    expect(customer).toMatchObject({ id: payment.customer_id, email: 'Bob@Shop.example', name: null, note: '', blocked: false, created_at: payment.created_at });
    expect(customer.stats).toMatchObject({ payments_count: 1, incomplete_count: 1, last_payment_at: payment.created_at });
    expect((await client.get(`/customers/${payment.customer_id}`)).body.data).toEqual(customer);
    const exists = await client.post('/customers', { email: 'bob@shop.example', name: 'Bob' });
    expect(exists.status).toBe(409);
    expect(exists.body.error.code).toBe('customer_exists');
    // a second payment names the same customer
    expect((await client.createPayment({ customer_email: 'BOB@shop.example' })).customer_id).toBe(payment.customer_id);
    expect((await client.get(`/customers/${payment.customer_id}`)).body.data.stats.payments_count).toBe(2);
  });

  it('reads its writes: right after the payment that names a new address, its customer can be changed, and the address is taken', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const first = await client.createPayment({ customer_email: 'quinn@shop.example' });
    const blocked = await client.post(`/customers/${first.customer_id}/block`); // no read in between
    expect(blocked.status).toBe(200);
    expect(blocked.body.data).toMatchObject({ id: first.customer_id, blocked: true, email: 'quinn@shop.example' });
    await client.createPayment({ customer_email: 'rosa@shop.example' });
    const taken = await client.post('/customers', { email: 'rosa@shop.example' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('customer_exists');
  });

  it('PATCH changes name, note and e-mail; another customer’s address is 409; the payments follow the customer, not the old address', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const known = await client.createPayment({ customer_email: 'carl@shop.example' }); // known from a payment only
    const other = (await client.post('/customers', { email: 'dana@shop.example' })).body.data;
    const carl = known.customer_id;

    const named = await client.patch(`/customers/${carl}`, { name: 'Carl', note: 'pays late' });
    expect(named.status).toBe(200);
    expect(named.body.data).toMatchObject({ id: carl, name: 'Carl', note: 'pays late', email: 'carl@shop.example', created_at: known.created_at });
    expect(named.body.data.stats.payments_count).toBe(1);
    expect(Date.parse(named.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(named.body.data.created_at));

    const taken = await client.patch(`/customers/${carl}`, { email: 'DANA@shop.example' });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'customer_exists', field: 'email' });
    expect((await client.get(`/customers/${carl}`)).body.data.email).toBe('carl@shop.example');

    const moved = await client.patch(`/customers/${carl}`, { email: 'carl@new.example' });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ id: carl, email: 'carl@new.example', name: 'Carl' });
    // the new address names Carl; the old one names a new customer, never Carl
    expect((await client.createPayment({ customer_email: 'Carl@New.example' })).customer_id).toBe(carl);
    const stranger = await client.createPayment({ customer_email: 'carl@shop.example' });
    expect(stranger.customer_id).not.toBe(carl);
    expect(stranger.customer_id).not.toBe(other.id);
    expect((await client.get(`/customers?email=carl@shop.example`)).body.data.map((c: { id: string }) => c.id)).toEqual([stranger.customer_id]);
    // Carl may not take back an address the new customer now has
    expect((await client.patch(`/customers/${carl}`, { email: 'carl@shop.example' })).body.error.code).toBe('customer_exists');
    // a change only in case keeps the address
    expect((await client.patch(`/customers/${carl}`, { email: 'CARL@new.example' })).body.data.email).toBe('CARL@new.example');
    expect((await client.get(`/payments?customer_id=${carl}`)).body.data).toHaveLength(2);
  });

  it('a blocked customer’s payments and checkouts are refused with 403 customer_blocked; unblocked, they are taken again', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const earlier = await client.createPayment({ customer_email: 'eve@shop.example' });
    const plain = await client.createPayment();
    const blocked = await client.post(`/customers/${earlier.customer_id}/block`);
    expect(blocked.status).toBe(200);
    expect(blocked.body.data).toMatchObject({ id: earlier.customer_id, blocked: true, email: 'eve@shop.example' });
    expect((await client.post(`/customers/${earlier.customer_id}/block`)).body.data.blocked).toBe(true); // again: unchanged

    const payment = await client.post('/payments', { amount: 1000, currency: 'USD', customer_email: 'EVE@shop.example' });
    expect(payment.status).toBe(403);
    expect(payment.body.error).toMatchObject({ code: 'customer_blocked', field: 'customer_email' });
    // the payment's own customer, or the checkout's e-mail
    const onPayment = await client.as(null).postOnce('/checkouts', { payment_code: code(earlier), asset: 'USDC', network: 'ethereum' });
    expect(onPayment.status).toBe(403);
    expect(onPayment.body.error.code).toBe('customer_blocked');
    const byEmail = await client.as(null).postOnce('/checkouts', { payment_code: code(plain), asset: 'USDC', network: 'ethereum', email: 'Eve@Shop.example' });
    expect(byEmail.status).toBe(403);
    expect(byEmail.body.error).toMatchObject({ code: 'customer_blocked', field: 'email' });
    const byCard = await client.as(null).postOnce('/checkouts', { payment_code: code(plain), rail: 'card', country: 'US', email: 'eve@shop.example' });
    expect(byCard.status).toBe(403);
    expect(byCard.body.error).toMatchObject({ code: 'customer_blocked', field: 'email' });
    expect((await client.as(null).postOnce('/checkouts', { payment_code: code(plain), asset: 'USDC', network: 'ethereum', email: 'frank@shop.example' })).status).toBe(201);
    expect((await client.get('/customers?blocked=true')).body.data.map((c: { id: string }) => c.id)).toEqual([earlier.customer_id]);

    const unblocked = await client.post(`/customers/${earlier.customer_id}/unblock`);
    expect(unblocked.status).toBe(200);
    expect(unblocked.body.data.blocked).toBe(false);
    expect((await client.post('/payments', { amount: 1000, currency: 'USD', customer_email: 'eve@shop.example' })).status).toBe(201);
    expect((await client.as(null).postOnce('/checkouts', { payment_code: code(earlier), asset: 'USDC', network: 'ethereum' })).status).toBe(201);
    expect((await client.get('/customers?blocked=true')).body.data).toEqual([]);
  });

  it('refuses blocking to test keys on a live business (403 test_mode_unavailable); the live key blocks', async () => {
    const live = await businessWithKey(suite.api, false);
    const customer = (await live.client.post('/customers', { email: 'gil@shop.example' })).body.data;
    const test = await clientWithNewKey(suite.api, { businessId: live.business.id, kind: 'secret', mode: 'test' });
    for (const action of ['block', 'unblock']) {
      const refused = await test.post(`/customers/${customer.id}/${action}`);
      expect({ action, status: refused.status, code: refused.body.error?.code }).toEqual({ action, status: 403, code: 'test_mode_unavailable' });
    }
    expect((await test.get(`/customers/${customer.id}`)).body.data.blocked).toBe(false);
    expect((await live.client.post(`/customers/${customer.id}/block`)).body.data.blocked).toBe(true);
    const payment = await live.client.post('/payments', { amount: 1000, currency: 'USD', customer_email: 'gil@shop.example' });
    expect(payment.body.error?.code).toBe('customer_blocked');
  });

  it("another business's customer is 404 not_found on every route, as is an id that does not exist", async () => {
    const mine = await businessWithKey(suite.api, true);
    const theirs = await businessWithKey(suite.api, true);
    const customer = (await theirs.client.post('/customers', { email: 'hana@shop.example' })).body.data;
    await expectNotFoundEverywhere([customer.id, 'cst_doesnotexist', 'not-an-id'], (id) => [
      () => mine.client.get(`/customers/${id}`),
      () => mine.client.patch(`/customers/${id}`, { name: 'x' }),
      () => mine.client.post(`/customers/${id}/block`),
      () => mine.client.post(`/customers/${id}/unblock`),
    ]);
    // the same address is another business's own customer
    const own = await mine.client.post('/customers', { email: 'hana@shop.example' });
    expect(own.status).toBe(201);
    expect(own.body.data.id).not.toBe(customer.id);
    expect((await theirs.client.get(`/customers/${customer.id}`)).body.data.blocked).toBe(false);
  });

  it('lists newest first in pages (limit 1–100), refuses a foreign cursor, bad limits and unknown filters with 400 invalid_request', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await client.post('/customers', { email: `${name}@list.example` })).body.data.id);
    const first = await expectTwoPages(client, '/customers', ids);
    expect((await client.get('/customers?email=B@LIST.example')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[1]]);

    await client.createPayment();
    await client.createPayment();
    const payments = await client.get('/payments?limit=1');
    const foreign = await client.get(`/customers?cursor=${payments.body.next_cursor}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: 'invalid_request', field: 'cursor' });
    const otherFilters = await client.get(`/customers?limit=2&blocked=true&cursor=${first.body.next_cursor}`);
    expect(otherFilters.body.error).toMatchObject({ code: 'invalid_request', field: 'cursor' });
    await expectQueriesRefused(client, '/customers', [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['blocked=yes', 'blocked'],
      ['color=red', 'color'],
    ]);
  });

  it('a simulated business whose test clock moved: every customer is on the business’s clock — created and changed at its now, as customers known from payments are; newest first is the creation order', async () => {
    const { client } = await businessWithKey(suite.api, true);
    await client.advance(20 * 60);
    const businessNow = async () => Date.parse((await client.get('/test_clock')).body.data.now);
    const before = await businessNow();
    const a = (await client.post('/customers', { email: 'clock-a@example.com', name: 'Clockcheck A' })).body.data;
    const payment = await client.createPayment({ amount: 700, description: 'clock', customer_email: 'clock-b@example.com' });
    const c = (await client.post('/customers', { email: 'clock-c@example.com', name: 'Clockcheck C' })).body.data;
    const patched = await client.patch(`/customers/${payment.customer_id}`, { name: 'Clockcheck B' });
    expect(patched.status).toBe(200);
    const b = patched.body.data;
    const after = await businessNow();
    // each time within the business's clock around the writes (wall time is 20 minutes behind it)
    for (const [what, at] of [['a created', a.created_at], ['c created', c.created_at], ['b updated', b.updated_at], ['b created', b.created_at]] as const) {
      expect({ what, within: Date.parse(at) >= before && Date.parse(at) <= after }).toEqual({ what, within: true });
    }
    expect(b.created_at).toBe(payment.created_at);
    expect(Date.parse(b.updated_at) >= Date.parse(b.created_at)).toBe(true);
    expect(Date.parse(a.created_at) <= Date.parse(b.created_at) && Date.parse(b.created_at) <= Date.parse(c.created_at)).toBe(true);
    // newest first: C, B, A — in the list and in search
    expect((await client.get('/customers')).body.data.map((x: { id: string }) => x.id)).toEqual([c.id, b.id, a.id]);
    expect((await client.get('/search?q=clockcheck&kind=customer')).body.data.map((x: { id: string }) => x.id)).toEqual([c.id, b.id, a.id]);
    // a block is a change at the business's now too
    const blocked = (await client.post(`/customers/${a.id}/block`)).body.data;
    expect(Date.parse(blocked.updated_at) >= after).toBe(true);
  });

  it('restricted keys need customers access: none is 403 permission_denied, read reads but does not write', async () => {
    const shop = await businessWithKey(suite.api, true);
    const customer = (await shop.client.post('/customers', { email: 'ivy@shop.example' })).body.data;
    const none = await clientWithNewKey(suite.api, { businessId: shop.business.id, kind: 'restricted', mode: 'test', permissions: 'payments:read' });
    for (const answer of [await none.get('/customers'), await none.get(`/customers/${customer.id}`), await none.post('/customers', { email: 'x@shop.example' }), await none.post(`/customers/${customer.id}/block`)]) {
      expect([answer.status, answer.body.error?.code]).toEqual([403, 'permission_denied']);
    }
    const reader = await clientWithNewKey(suite.api, { businessId: shop.business.id, kind: 'restricted', mode: 'test', permissions: 'customers:read' });
    expect((await reader.get(`/customers/${customer.id}`)).status).toBe(200);
    expect((await reader.get('/customers')).body.data).toHaveLength(1);
    expect((await reader.patch(`/customers/${customer.id}`, { name: 'x' })).body.error.code).toBe('permission_denied');
    const writer = await clientWithNewKey(suite.api, { businessId: shop.business.id, kind: 'restricted', mode: 'test', permissions: 'customers:write' });
    expect((await writer.post(`/customers/${customer.id}/block`)).body.data.blocked).toBe(true);
  });

  it('GET /payments?customer_id= lists that customer’s payments only', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const a = await client.createPayment({ customer_email: 'jo@shop.example' });
    const b = await client.createPayment({ customer_email: 'jo@shop.example' });
    await client.createPayment({ customer_email: 'kim@shop.example' });
    await client.createPayment();
    const listed = await client.get(`/payments?customer_id=${a.customer_id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([b.id, a.id]);
    expect((await client.get('/payments?customer_id=cst_nobody')).body.data).toEqual([]);
    expect((await client.get('/payments?customer_id=nope')).body.error).toMatchObject({ code: 'invalid_request', field: 'customer_id' });
  });

  it('stats follow the payments: a succeeded payment counts in volume, average and the preferred rail', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const paid = await client.createPayment({ amount: 10_000, customer_email: 'lou@shop.example' });
    const pending = await client.createPayment({ amount: 2_500, customer_email: 'lou@shop.example' });
    const checkout = await client.openCheckout(paid);
    await client.markSent(checkout.id, 'exact');
    await client.advance(60);
    expect((await client.payment(paid.id)).status).toBe('succeeded');
    const customer = (await client.get(`/customers/${paid.customer_id}`)).body.data;
    expect(customer.stats).toEqual({
      payments_count: 2,
      incomplete_count: 1,
      volume: { amount: 10_000, currency: 'USD' },
      average: { amount: 10_000, currency: 'USD' },
      last_payment_at: pending.created_at,
      preferred_rail: 'crypto',
    });
  });

  it('sends customer.created and customer.updated events with the customer as data', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const made = (await client.post('/customers', { email: 'max@shop.example', name: 'Max' })).body.data;
    const fromPayment = await client.createPayment({ customer_email: 'nia@shop.example' });
    await client.post(`/customers/${made.id}/block`);
    await client.patch(`/customers/${fromPayment.customer_id}`, { name: 'Nia' });
    await client.patch(`/customers/${fromPayment.customer_id}`, { name: 'Nia' }); // nothing changes: no event

    const created = (await client.get('/events?type=customer.created')).body.data;
    expect(created.map((e: { subject: { id: string } }) => e.subject.id).sort()).toEqual([made.id, fromPayment.customer_id].sort());
    const createdMade = created.find((e: { subject: { id: string } }) => e.subject.id === made.id);
    expect(createdMade).toMatchObject({ kind: 'event', type: 'customer.created', subject: { kind: 'customer', id: made.id }, data: { kind: 'customer', id: made.id, email: 'max@shop.example', name: 'Max', blocked: false } });
    // the customer as POST /customers answered it, stats included (zero for a new customer)
    expect(createdMade.data).toEqual(made);
    expect(created.find((e: { subject: { id: string } }) => e.subject.id === fromPayment.customer_id).data.stats).toMatchObject({ payments_count: 1, incomplete_count: 1, last_payment_at: fromPayment.created_at });

    const updated = (await client.get('/events?type=customer.updated')).body.data;
    expect(updated.map((e: { subject: { id: string }; data: { blocked: boolean; name: string | null } }) => [e.subject.id, e.data.blocked, e.data.name])).toEqual([
      [fromPayment.customer_id, false, 'Nia'],
      [made.id, true, 'Max'],
    ]);
  });
});

describe('customer events carry the customer as its endpoint returns it (spec §6), stats included', () => {
  const suite = appPerSuite(() => startTestApi());

  it('customer.created from POST /customers and from a payment, customer.updated after payments moved the stats: each event’s data is GET /customers/{id} at that moment', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const eventOf = async (type: string, id: string) => {
      const events = (await client.get(`/events?type=${type}&subject_id=${id}`)).body.data as { data: unknown }[];
      expect(events.length).toBe(1);
      return events[0].data;
    };
    const customerNow = async (id: string) => (await client.get(`/customers/${id}`)).body.data;

    const eve = await client.post('/customers', { email: 'eve@example.com', name: 'Eve Zyx' });
    expect(eve.status).toBe(201);
    expect(await eventOf('customer.created', eve.body.data.id)).toEqual(eve.body.data);
    expect(eve.body.data.stats).toEqual({ payments_count: 0, incomplete_count: 0, volume: { amount: 0, currency: null }, average: { amount: 0, currency: null }, last_payment_at: null, preferred_rail: null });

    const implicit = await client.createPayment({ amount: 4_200, customer_email: 'ivy@example.com' });
    const ivy = await customerNow(implicit.customer_id);
    expect(ivy.stats).toMatchObject({ payments_count: 1, incomplete_count: 1, volume: { amount: 0, currency: 'USD' } });
    expect(await eventOf('customer.created', implicit.customer_id)).toEqual(ivy);

    // Eve pays once (succeeded) and leaves a second payment open; then a change gives customer.updated
    const paid = await client.createPayment({ amount: 10_000, customer_email: 'eve@example.com' });
    await client.createPayment({ amount: 2_500, customer_email: 'eve@example.com' });
    const checkout = await client.openCheckout(paid);
    await client.markSent(checkout.id, 'exact');
    await client.advance(60);
    expect((await client.payment(paid.id)).status).toBe('succeeded');
    const blocked = await client.post(`/customers/${eve.body.data.id}/block`);
    expect(blocked.status).toBe(200);
    const now = await customerNow(eve.body.data.id);
    expect(now.stats).toMatchObject({ payments_count: 2, incomplete_count: 1, volume: { amount: 10_000, currency: 'USD' }, preferred_rail: 'crypto' });
    expect(await eventOf('customer.updated', eve.body.data.id)).toEqual(now);

    // a recorded customer that a payment names afterwards, and nothing else: its updated_at stays the
    // creation's in the live run (two batches) and in a replay (one batch) alike (operators audit)
    const fay = await client.post('/customers', { email: 'fay@example.com' });
    await new Promise((r) => setTimeout(r, 5));
    await client.createPayment({ amount: 1_000, customer_email: 'fay@example.com' });
    expect((await customerNow(fay.body.data.id)).updated_at).toBe(fay.body.data.updated_at);

    // the live run and a replay of the log agree (views and links of the events projection, the customers' stats)
    const store = suite.api.app.get<EventStore>(EVENT_STORE);
    const db = suite.api.app.get<Database>(DATABASE);
    for (const name of ['events', 'customers']) {
      const projector = findProjector(name, allProjectors({ checkoutBaseUrl: suite.api.config.checkoutBaseUrl }));
      expect({ name, differences: (await verifyProjection(store, db, projector)).differences }).toEqual({ name, differences: [] });
    }
  });
});

describe('customer events delivered to an endpoint', () => {
  const suite = appWithReceiver();

  it('an endpoint subscribed to customer.* receives customer.created and customer.updated with the customer', async () => {
    const client = await subscribedBusiness(suite, ['customer.created', 'customer.updated']);
    const customer = (await client.post('/customers', { email: 'ola@shop.example', name: 'Ola' })).body.data;
    await client.post(`/customers/${customer.id}/block`);
    await client.createPayment({ customer_email: 'pia@shop.example' });
    const received = await receivedEvents(suite.receiver, 3);
    expect(received.map((e) => [e.type, e.data.email, e.data.blocked]).sort()).toEqual(
      [
        ['customer.created', 'ola@shop.example', false],
        ['customer.updated', 'ola@shop.example', true],
        ['customer.created', 'pia@shop.example', false],
      ].sort(),
    );
    expect(received.find((e) => e.type === 'customer.updated')).toMatchObject({ kind: 'event', subject: { kind: 'customer', id: customer.id }, data: { kind: 'customer', id: customer.id, name: 'Ola' } });
    // the deliveries carry the stats too: the new customers' zero stats, the payment's customer its payment
    expect(received.find((e) => e.type === 'customer.created' && e.data.email === 'ola@shop.example').data).toEqual(customer);
    expect(received.find((e) => e.type === 'customer.created' && e.data.email === 'pia@shop.example').data.stats).toMatchObject({ payments_count: 1, incomplete_count: 1 });
  });
});
