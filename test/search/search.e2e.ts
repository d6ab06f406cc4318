import { DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { rebuildProjection, verifyProjection } from '@lib/projections';
import { SEARCH_PROJECTOR } from '@lib/search';
import { Client, STORE_KINDS, appPerSuite, businessWithKey, clientWithNewKey, expectQueriesRefused, startApp } from '../support/fixtures';

/**
 * GET /search (spec §4, issue #13 point 3, decision 0031) over HTTP on the real app, on both
 * stores: every field payments and customers are found by, amounts in the forms people type,
 * the ranking (exact, word prefix, anywhere; customers before payments; newest first),
 * include=customer, paging while payments arrive, cursors of other lists, other businesses,
 * restricted keys, client mistakes, and a rebuild of the projection giving the same index.
 */
describe.each(STORE_KINDS)('GET /search (%s store)', (kind) => {
  const suite = appPerSuite(() => startApp(kind, {}, 'search'));

  const ids = (answer: { body: { data: { kind: string; id: string }[] } }) => answer.body.data.map((o) => `${o.kind}:${o.id}`);
  const search = async (client: Client, params: Record<string, string>) => {
    const answer = await client.get(`/search?${new URLSearchParams(params)}`);
    expect({ params, status: answer.status, error: answer.body.error }).toEqual({ params, status: 200, error: undefined });
    return answer;
  };

  it('finds a payment by every field the spec names and a customer by id, e-mail and name; results are the objects their endpoints return', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const customer = (await client.post('/customers', { email: 'Ann.Lee@Example.com', name: 'Ann Lee' })).body.data;
    const payment = await client.createPayment({
      amount: 2550,
      currency: 'USD',
      description: 'Blue widget order',
      reference: 'REF-77881',
      metadata: { order: 'ord_5521', channel: 'storefront' },
      customer_email: 'ann.lee@example.com',
    });
    const other = await client.createPayment({ amount: 990, description: 'Something else entirely' });
    const checkout = await client.openCheckout(payment);
    await client.markSent(checkout.id);
    const paid = await client.payment(payment.id);
    const txHash: string = paid.method.tx_hash;
    const sender: string = paid.method.from_address;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sender).toMatch(/^0x[0-9A-Fa-f]{40}$/);

    const byChance = (digits: string, owner: { id: string }, ...texts: string[]) =>
      [owner.id, ...texts].some((t) => t.toLowerCase().includes(digits)) ? [`payment:${owner.id}`] : [];
    const cases: [string, string[]][] = [
      [payment.id, [`payment:${payment.id}`]],
      [payment.id.toUpperCase(), [`payment:${payment.id}`]],
      [checkout.id, [`payment:${payment.id}`]],
      ['REF-77881', [`payment:${payment.id}`]],
      ['ord_5521', [`payment:${payment.id}`]],
      ['storefront', [`payment:${payment.id}`]],
      [txHash, [`payment:${payment.id}`]],
      [txHash.slice(10, 30), [`payment:${payment.id}`]],
      [sender, [`payment:${payment.id}`]],
      [sender.toLowerCase(), [`payment:${payment.id}`]],
      ['widget', [`payment:${payment.id}`]],
      ['Blue widget', [`payment:${payment.id}`]],
      ['idget ord', [`payment:${payment.id}`]],
      ['ann.lee@example.com', [`customer:${customer.id}`, `payment:${payment.id}`]],
      ['Ann', [`customer:${customer.id}`, `payment:${payment.id}`]],
      ['lee', [`customer:${customer.id}`, `payment:${payment.id}`]],
      [customer.id, [`customer:${customer.id}`]],
      // amounts in the forms people type: 25.50 = 2550 cents
      ['25.50', [`payment:${payment.id}`]],
      ['25.5', [`payment:${payment.id}`]],
      ['2550', [`payment:${payment.id}`, ...byChance('2550', other)]],
      ['$25.50', [`payment:${payment.id}`]],
      ['9.90', [`payment:${other.id}`]],
      // an amount's digits are also matched anywhere (rank 2), and random ids, the hash and the
      // sender are hexadecimal or base62: they hold "990" or "2550" by chance (about 1 run in 40)
      ['990', [`payment:${other.id}`, ...byChance('990', payment, checkout.id, txHash, sender)]],
      ['25.49', []],
      ['nothing-like-this', []],
    ];
    for (const [q, expected] of cases) expect({ q, found: ids(await search(client, { q })) }).toEqual({ q, found: expected });

    // each result is exactly what its own endpoint returns
    const both = await search(client, { q: 'ann.lee@example.com' });
    expect(both.body).toEqual({ data: [(await client.get(`/customers/${customer.id}`)).body.data, await client.payment(payment.id)], has_more: false, next_cursor: null });

    // a renamed customer's payments are found by the new name, a changed metadata value by the new value only
    expect((await client.patch(`/customers/${customer.id}`, { name: 'Annabel Quist' })).status).toBe(200);
    expect((await client.patch(`/payments/${payment.id}`, { metadata: { order: 'ord_9999' } })).status).toBe(200);
    expect(ids(await search(client, { q: 'quist' }))).toEqual([`customer:${customer.id}`, `payment:${payment.id}`]);
    expect(ids(await search(client, { q: 'ord_9999' }))).toEqual([`payment:${payment.id}`]);
    expect(ids(await search(client, { q: 'ord_5521' }))).toEqual([]);
    // the old name no longer finds the payment (the e-mail it was created with still does)
    expect(ids(await search(client, { q: 'ann lee', kind: 'payment' }))).toEqual([]);
    expect(ids(await search(client, { q: 'ann.lee@example.com', kind: 'payment' }))).toEqual([`payment:${payment.id}`]);
  });

  it('include=customer adds each payment its customer (null without one); kind narrows the kinds', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const named = await client.createPayment({ description: 'Include test one', customer_email: 'inc@shop.example' });
    const anonymous = await client.createPayment({ description: 'Include test two' });
    const customer = (await client.get(`/customers/${named.customer_id}`)).body.data;
    const answer = await search(client, { q: 'include test', include: 'customer' });
    expect(answer.body.data).toEqual([
      { ...(await client.payment(anonymous.id)), customer: null },
      { ...(await client.payment(named.id)), customer },
    ]);
    expect(ids(await search(client, { q: 'inc' }))).toEqual([`customer:${customer.id}`, `payment:${anonymous.id}`, `payment:${named.id}`]);
    expect(ids(await search(client, { q: 'inc', kind: 'customer' }))).toEqual([`customer:${customer.id}`]);
    expect(ids(await search(client, { q: 'inc', kind: 'payment,link' }))).toEqual([`payment:${anonymous.id}`, `payment:${named.id}`]);
    expect(ids(await search(client, { q: 'inc', kind: 'link' }))).toEqual([]);
  });

  it('ranks exact ids and e-mails first, then word prefixes, then matches anywhere; customers before payments; newest first', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const email = 'dana@shop.example';
    const exact1 = await client.createPayment({ description: 'first', customer_email: email });
    const anywhere = await client.createPayment({ description: 'second', reference: `x${email}` });
    const prefix = await client.createPayment({ description: `note ${email}.org` });
    const exact2 = await client.createPayment({ description: 'third', customer_email: email });
    const customer = exact1.customer_id;
    expect(ids(await search(client, { q: email }))).toEqual([`customer:${customer}`, `payment:${exact2.id}`, `payment:${exact1.id}`, `payment:${prefix.id}`, `payment:${anywhere.id}`]);

    const target = await client.createPayment({ description: 'target' });
    const before = await client.createPayment({ description: `about${target.id}` });
    const startsWith = await client.createPayment({ description: 'retry', reference: `${target.id}-retry` });
    expect(ids(await search(client, { q: target.id }))).toEqual([`payment:${target.id}`, `payment:${startsWith.id}`, `payment:${before.id}`]);

    // a transaction hash: exact before the payment whose description starts with it
    const paid = await client.createPayment({ description: 'paid one' });
    await client.markSent((await client.openCheckout(paid)).id);
    const hash: string = (await client.payment(paid.id)).method.tx_hash;
    const mentions = await client.createPayment({ description: `${hash.slice(0, 40)} mentioned` });
    expect(ids(await search(client, { q: hash.slice(0, 40) }))).toEqual([`payment:${mentions.id}`, `payment:${paid.id}`]);
    expect(ids(await search(client, { q: hash }))).toEqual([`payment:${paid.id}`]);
  });

  it('finds links by id, code, name, description and price, as GET /links/{id} returns them; ties put links first; a deleted link leaves the index', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const created = await client.post('/links', { name: 'Walnut Desk', description: 'Solid oak legs', amount: 4250, currency: 'USD' });
    expect(created.status).toBe(201);
    const link = created.body.data;
    const own = (await client.get(`/links/${link.id}`)).body.data;
    for (const q of [link.id, link.code, 'walnut', 'Desk', 'oak', '42.50', '4250']) {
      const answer = await search(client, { q, kind: 'link' });
      expect({ q, data: answer.body.data }).toEqual({ q, data: [own] });
    }
    // a tie on the same rank: links before customers and payments
    const customer = (await client.post('/customers', { email: 'walnut@shop.example', name: 'Walnut Fan' })).body.data;
    const payment = await client.createPayment({ description: 'Walnut shelf' });
    expect(ids(await search(client, { q: 'walnut' }))).toEqual([`link:${link.id}`, `customer:${customer.id}`, `payment:${payment.id}`]);
    // a change replaces what is searchable
    expect((await client.patch(`/links/${link.id}`, { name: 'Cherry Desk' })).status).toBe(200);
    expect(ids(await search(client, { q: 'cherry', kind: 'link' }))).toEqual([`link:${link.id}`]);
    expect(ids(await search(client, { q: 'walnut', kind: 'link' }))).toEqual([]);
    // deleted (no payments): gone from search
    expect((await client.call('DELETE', `/links/${link.id}`)).status).toBe(200);
    expect(ids(await search(client, { q: link.code }))).toEqual([]);
  });

  it('an amount query that names a currency (code or sign) finds amounts in that currency only; a bare number any currency', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const usdLink = (await client.post('/links', { name: 'Currency link', amount: 2500, currency: 'USD' })).body.data;
    const usd = await client.createPayment({ amount: 2500, currency: 'USD', description: 'Currency test usd' });
    const eur = await client.createPayment({ amount: 2500, currency: 'EUR', description: 'Currency test eur' });
    const cases: [string, string[]][] = [
      ['25 EUR', [`payment:${eur.id}`]],
      ['EUR 25', [`payment:${eur.id}`]],
      ['€25', [`payment:${eur.id}`]],
      ['€25.00', [`payment:${eur.id}`]],
      ['25 usd', [`link:${usdLink.id}`, `payment:${usd.id}`]],
      ['$25', [`link:${usdLink.id}`, `payment:${usd.id}`]],
      ['$25 USD', [`link:${usdLink.id}`, `payment:${usd.id}`]],
      ['£25', []],
      ['25 CAD', []],
      ['€25 USD', []],
      ['25.00', [`link:${usdLink.id}`, `payment:${eur.id}`, `payment:${usd.id}`]],
    ];
    for (const [q, expected] of cases) expect({ q, found: ids(await search(client, { q })) }).toEqual({ q, found: expected });
  });

  it('pages with limit and cursor, stable while new payments arrive', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await client.createPayment({ description: `Paging item ${i}` })).id);
    const newestFirst = [...made].reverse();
    const first = await search(client, { q: 'paging item', limit: '3' });
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const arrived = [(await client.createPayment({ description: 'Paging item new' })).id, (await client.createPayment({ description: 'Paging item newer' })).id];
    const second = await search(client, { q: 'paging item', limit: '3', cursor: first.body.next_cursor });
    const third = await search(client, { q: 'paging item', limit: '3', cursor: second.body.next_cursor });
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });
    expect([first, second, third].flatMap((p) => p.body.data.map((o: { id: string }) => o.id))).toEqual(newestFirst);
    expect((await search(client, { q: 'paging item', limit: '100' })).body.data.map((o: { id: string }) => o.id)).toEqual([...arrived.reverse(), ...newestFirst]);
  });

  it('refuses cursors of other lists, and its own to them; another business never sees these objects', async () => {
    const { client } = await businessWithKey(suite.api, true);
    for (let i = 0; i < 2; i++) await client.createPayment({ description: 'Cursor zebra', customer_email: `c${i}@zebra.example` });
    const searchCursor = (await search(client, { q: 'zebra', limit: '1' })).body.next_cursor;
    const paymentsCursor = (await client.get('/payments?limit=1')).body.next_cursor;
    const customersCursor = (await client.get('/customers?limit=1')).body.next_cursor;
    for (const path of [`/payments?cursor=${searchCursor}`, `/customers?cursor=${searchCursor}`, `/search?q=zebra&cursor=${paymentsCursor}`, `/search?q=zebra&cursor=${customersCursor}`, `/search?q=other&cursor=${searchCursor}`, `/search?q=zebra&kind=payment&cursor=${searchCursor}`, '/search?q=zebra&cursor=bm90LWEtY3Vyc29y']) {
      const answer = await client.get(path);
      expect({ path, status: answer.status, code: answer.body.error?.code, field: answer.body.error?.field }).toEqual({ path, status: 400, code: 'invalid_request', field: 'cursor' });
    }
    const payment = (await client.get('/payments?limit=1')).body.data[0];
    const stranger = (await businessWithKey(suite.api, true)).client;
    await stranger.createPayment({ description: 'Stranger things' });
    for (const q of ['zebra', payment.id, payment.customer_id, 'c0@zebra.example', 'cursor']) expect({ q, found: ids(await search(stranger, { q })) }).toEqual({ q, found: [] });
    // the same search of another business is another list: the cursor is refused, not read as a position
    for (const path of [`/search?q=zebra&limit=1&cursor=${searchCursor}`, `/payments?limit=1&cursor=${paymentsCursor}`, `/customers?limit=1&cursor=${customersCursor}`]) {
      const answer = await stranger.get(path);
      expect({ path, status: answer.status, field: answer.body.error?.field }).toEqual({ path, status: 400, field: 'cursor' });
    }
    expect(ids(await search(client, { q: 'stranger' }))).toEqual([]);
  });

  it('restricted keys search only what they can read: the kinds of the resources they read, no permission of its own', async () => {
    const shop = await businessWithKey(suite.api, true);
    const payment = await shop.client.createPayment({ description: 'Restricted walrus', customer_email: 'walrus@shop.example' });
    const key = (permissions: string) => clientWithNewKey(suite.api, { businessId: shop.business.id, kind: 'restricted', mode: 'test', permissions });
    const denied = async (client: Client, query: string, field: string | null) => {
      const answer = await client.get(`/search?${query}`);
      expect({ query, status: answer.status, code: answer.body.error?.code }).toEqual({ query, status: 403, code: 'permission_denied' });
      if (field !== undefined) expect(answer.body.error.field ?? null).toBe(field);
    };
    // a key that reads none of the kinds search finds
    await denied(await key('webhooks:write'), 'q=walrus', null);
    await denied(await key('events:read,checkouts:write'), 'q=walrus', null);
    // validation (400) before permissions (403), for a key that reads none of the kinds too (audit "rest" finding 6)
    const readsNone = await key('webhooks:write');
    for (const [query, field] of [['q=', 'q'], ['q=%20', 'q'], ['kind=payment', 'q'], ['q=walrus&kind=foo', 'kind'], ['q=walrus&include=x', 'include'], ['q=walrus&limit=0', 'limit'], ['q=walrus&nope=1', 'nope']]) {
      const answer = await readsNone.get(`/search?${query}`);
      expect({ query, status: answer.status, code: answer.body.error?.code, field: answer.body.error?.field }).toEqual({ query, status: 400, code: 'invalid_request', field });
    }
    await denied(readsNone, 'q=walrus&kind=payment', 'kind');
    const payments = await key('payments:read');
    expect(ids(await search(payments, { q: 'walrus' }))).toEqual([`payment:${payment.id}`]);
    await denied(payments, 'q=walrus&kind=customer', 'kind');
    await denied(payments, 'q=walrus&include=customer', 'include');
    const customers = await key('customers:read');
    expect(ids(await search(customers, { q: 'walrus' }))).toEqual([`customer:${payment.customer_id}`]);
    await denied(customers, 'q=walrus&kind=payment', 'kind');
    const both = await key('payments:write,customers:read');
    expect(ids(await search(both, { q: 'walrus' })).sort()).toEqual([`customer:${payment.customer_id}`, `payment:${payment.id}`].sort());
    expect((await search(both, { q: 'walrus', include: 'customer', kind: 'payment' })).body.data[0].customer.id).toBe(payment.customer_id);
  });

  // decision 0031, addendum of 2026-11-29 (audit "rest" finding 2): else search is a substring oracle for e-mails the key may not read
  it('a key that cannot read customers does not find payments by their customer’s name or e-mail, only by the payment’s own fields', async () => {
    const shop = await businessWithKey(suite.api, true);
    const payment = await shop.client.createPayment({ description: 'Secret item', reference: 'ord-narwhal', customer_email: 'private.person@oracle.example' });
    expect((await shop.client.patch(`/customers/${payment.customer_id}`, { name: 'Bob Widgetson' })).status).toBe(200);
    const key = (permissions: string) => clientWithNewKey(suite.api, { businessId: shop.business.id, kind: 'restricted', mode: 'test', permissions });
    const paymentsOnly = await key('payments:read');
    const both = await key('payments:read,customers:read');
    const found = async (client: Client, q: string) => ids(await search(client, { q }));
    for (const q of ['private.person@oracle.example', 'PRIVATE.PERSON@ORACLE.EXAMPLE', 'rivate.pers', 'oracle.example', 'widgetso', 'Bob Widgetson']) {
      expect({ q, found: await found(paymentsOnly, q) }).toEqual({ q, found: [] });
      expect({ q, found: (await found(both, q)).filter((id) => id.startsWith('payment:')) }).toEqual({ q, found: [`payment:${payment.id}`] });
      expect({ q, found: await found(shop.client, q) }).toEqual({ q, found: expect.arrayContaining([`payment:${payment.id}`, `customer:${payment.customer_id}`]) });
    }
    // the payment's own fields still match, with their ranks
    for (const q of [payment.id, 'secret', 'item', 'narwhal', 'ord-narwhal']) expect({ q, found: await found(paymentsOnly, q) }).toEqual({ q, found: [`payment:${payment.id}`] });
    expect((await search(paymentsOnly, { q: 'ecret ite' })).body.data.map((p: { id: string }) => p.id)).toEqual([payment.id]);
    // a rename reaches the index; the new name is hidden from this key as the old one was
    expect((await shop.client.patch(`/customers/${payment.customer_id}`, { name: 'Carla Quokkason', email: 'carla@quokka.example' })).status).toBe(200);
    for (const q of ['quokka', 'carla@quokka.example']) {
      expect({ q, found: await found(paymentsOnly, q) }).toEqual({ q, found: [] });
      expect({ q, found: await found(both, q) }).toEqual({ q, found: expect.arrayContaining([`payment:${payment.id}`]) });
    }
  });

  it('refuses a missing or too long q, a bad kind, include or limit with 400 invalid_request naming it', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const cases: [string, string][] = [
      ['', 'q'],
      ['q=', 'q'],
      ['q=%20%20', 'q'],
      [`q=${'a'.repeat(101)}`, 'q'],
      ['q=a&q=b', 'q'],
      ['q=a&kind=invoice', 'kind'],
      ['q=a&kind=payment,invoice', 'kind'],
      ['q=a&kind=', 'kind'],
      ['q=a&include=payment', 'include'],
      ['q=a&limit=0', 'limit'],
      ['q=a&limit=101', 'limit'],
      ['q=a&limit=ten', 'limit'],
      ['q=a&color=red', 'color'],
    ];
    await expectQueriesRefused(client, '/search', cases);
    expect((await search(client, { q: 'a'.repeat(100) })).body).toEqual({ data: [], has_more: false, next_cursor: null });
    expect((await search(client, { q: '%_\\' })).body.data).toEqual([]);
  });

  it('a rebuild of the projection gives the same index, and verify finds no difference', async () => {
    const store = suite.api.app.get<EventStore>(EVENT_STORE);
    const db = suite.api.app.get<Database>(DATABASE);
    const snapshot = async () => (await db.query(`SELECT * FROM search_documents ORDER BY kind, object_id`)).rows;
    const before = await snapshot();
    expect(before.length).toBeGreaterThan(20);
    expect((await verifyProjection(store, db, SEARCH_PROJECTOR)).differences).toEqual([]);
    await rebuildProjection(store, db, SEARCH_PROJECTOR, { batchSize: 7 });
    expect(await snapshot()).toEqual(before);
    await db.query(`UPDATE search_documents SET text = 'tampered' WHERE object_id = (SELECT min(object_id) FROM search_documents)`);
    expect((await verifyProjection(store, db, SEARCH_PROJECTOR)).differences.map((d) => d.table)).toEqual(['search_documents']);
    await rebuildProjection(store, db, SEARCH_PROJECTOR);
    expect(await snapshot()).toEqual(before);
  });
});
