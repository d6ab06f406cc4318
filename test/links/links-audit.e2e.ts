import { randomUUID } from 'node:crypto';
import { Answer, Client, appPerSuite, businessWithKey, startTestApi } from '../support/fixtures';
import { eventually } from '../support/eventually';

/**
 * An outside-in audit of payment links and customers (spec §2, §4, §6, §7, §8; decisions 0029,
 * 0030; audit of 2026-11-28): an API client's view of every link and customer route — exact
 * fields and types, status codes and the error envelope, limits, other businesses' ids,
 * malformed bodies that change nothing, Idempotency-Key rules, paying through a link and what it
 * does to the customer (stats, GET /payments?customer_id, customer.created), and the two defects
 * the audit fixed: a link's rails and coins in one canonical form, a card payment's rail in a
 * customer's `preferred_rail`.
 */
describe('links and customers: the audit of 2026-11-28', () => {
  const suite = appPerSuite(() => startTestApi());
  const LINK = { name: 'Mug', amount: 2_500, currency: 'USD' };

  /** The request as an API client sends it: any body text, JSON content type unless told. */
  const raw = async (client: Client, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> => {
    const response = await fetch(`${suite.api.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${client.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  };
  /** §7: `{error: {code, message, field, request_id}}`, request_id equal to the Service-Request-Id header. */
  const expectError = (answer: Answer, status: number, code: string, field?: string | null) => {
    expect({ status: answer.status, code: answer.body?.error?.code, ...(field === undefined ? {} : { field: answer.body?.error?.field }) }).toEqual({ status, code, ...(field === undefined ? {} : { field }) });
    expect(Object.keys(answer.body.error).sort()).toEqual(['code', 'field', 'message', 'request_id']);
    expect(typeof answer.body.error.message).toBe('string');
    expect(answer.body.error.request_id).toMatch(/^req_/);
    expect(answer.headers.get('service-request-id')).toBe(answer.body.error.request_id);
  };
  const createLink = async (client: Client, fields: Record<string, unknown> = {}) => {
    const answer = await client.post('/links', { ...LINK, ...fields });
    if (answer.status !== 201) throw new Error(`create link: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  };
  const linkEvents = async (client: Client, type: string) => (await client.get(`/events?type=${type}`)).body.data as { subject: { id: string }; data: Record<string, unknown> }[];

  it('the link object: every field with its type; money in integer minor units; timestamps ISO with milliseconds', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const link = await createLink(client, { description: 'Blue', metadata: { sku: 'M-1' } });
    const types = Object.fromEntries(Object.entries(link).map(([k, v]) => [k, v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v]));
    expect(types).toEqual({
      kind: 'string', id: 'string', code: 'string', url: 'string', name: 'string', description: 'string', amount: 'number', currency: 'string', rails: 'null', assets: 'null',
      success_url: 'null', ask_email: 'boolean', metadata: 'object', status: 'string', payments_count: 'number', created_at: 'string', updated_at: 'string',
    });
    expect(Number.isSafeInteger(link.amount)).toBe(true);
    expect(link.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(link.id).toMatch(/^lnk_/);
    // the bounds of a payment amount (§8: $1.00 to $1,000,000.00, whole minor units)
    expect((await client.post('/links', { ...LINK, amount: 100 })).status).toBe(201);
    expect((await client.post('/links', { ...LINK, amount: 100_000_000 })).status).toBe(201);
    for (const amount of [99, 100_000_001, -5, 2500.5, '2500', 1e20, null]) expectError(await client.post('/links', { ...LINK, amount }), 400, 'invalid_request', 'amount');
    // name 1..200 (trimmed), description at most 1000
    expect((await client.post('/links', { ...LINK, name: 'n'.repeat(200) })).status).toBe(201);
    expectError(await client.post('/links', { ...LINK, name: 'n'.repeat(201) }), 400, 'invalid_request', 'name');
    expectError(await client.post('/links', { ...LINK, description: 'd'.repeat(1001) }), 400, 'invalid_request', 'description');
  });

  it('malformed bodies on POST and PATCH /links answer 400 with the envelope and change nothing', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const link = await createLink(client);
    const created: [string, string | null][] = [
      ['null', null], ['[]', null], ['"x"', null], ['1', null],
      ['{"name":null,"amount":2500,"currency":"USD"}', 'name'],
      ['{"name":"a\\u0000b","amount":2500,"currency":"USD"}', 'name'],
      ['{"name":"a\\ud800b","amount":2500,"currency":"USD"}', 'name'],
      ['{"name":"a","amount":2500,"currency":"usd"}', 'currency'],
      ['{"name":"a","amount":2500,"currency":"USD","status":"archived"}', 'status'],
      ['{"name":"a","amount":2500,"currency":"USD","payments_count":3}', 'payments_count'],
      ['{"name":"a","amount":2500,"currency":"USD","assets":[null]}', 'assets.0'],
      ['{"name":"a","amount":2500,"currency":"USD","assets":[{"asset":"USDC","network":"ethereum","x":1}]}', 'assets.0.x'],
      ['{"name":"a","amount":2500,"currency":"USD","metadata":[]}', 'metadata'],
      ['{"name":"a","amount":2500,"currency":"USD","success_url":"javascript:alert(1)"}', 'success_url'],
      ['{"name":"a","amount":2500,"currency":"USD","ask_email":null}', 'ask_email'],
    ];
    for (const [body, field] of created) {
      const answer = await raw(client, 'POST', '/links', body);
      expect({ body, field: answer.body?.error?.field }).toEqual({ body, field });
      expectError(answer, 400, 'invalid_request');
    }
    expectError(await raw(client, 'POST', '/links', '{"name":'), 400, 'invalid_json');
    expectError(await raw(client, 'POST', '/links', JSON.stringify(LINK), { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    expectError(await raw(client, 'POST', '/links', JSON.stringify({ ...LINK, description: 'x'.repeat(1_100_000) })), 413, 'payload_too_large');
    const changes: [string, string | null][] = [
      ['null', null], ['[]', null], ['{}', null],
      ['{"name":null}', 'name'], ['{"name":""}', 'name'], ['{"amount":null}', 'amount'], ['{"amount":99}', 'amount'],
      ['{"currency":null}', 'currency'], ['{"ask_email":null}', 'ask_email'], ['{"code":"x"}', 'code'], ['{"name":"b","extra":1}', 'extra'],
    ];
    for (const [body, field] of changes) {
      const answer = await raw(client, 'PATCH', `/links/${link.id}`, body);
      expect({ body, field: answer.body?.error?.field }).toEqual({ body, field });
      expectError(answer, 400, 'invalid_request');
    }
    expectError(await client.post(`/links/${link.id}/archive`, { foo: 1 }), 400, 'invalid_request', 'foo');
    expect((await client.get('/links')).body.data).toEqual([link]);
    expect(await linkEvents(client, 'link.updated')).toEqual([]);
  });

  it('§4/§7: a path without the method is 405 with an empty body and no request id', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const link = await createLink(client);
    const customer = (await client.post('/customers', { email: 'm@shop.example' })).body.data;
    for (const [method, path] of [['PUT', `/links/${link.id}`], ['GET', `/links/${link.id}/archive`], ['DELETE', '/links'], ['DELETE', `/customers/${customer.id}`], ['GET', `/customers/${customer.id}/block`]]) {
      const answer = await raw(client, method, path, method === 'PUT' ? '{}' : undefined);
      expect({ method, path, status: answer.status, body: answer.body, id: answer.headers.get('service-request-id') }).toEqual({ method, path, status: 405, body: null, id: null });
    }
  });

  it('§8 Idempotency-Key: POST /links replays with Idempotent-Replayed, another body is 409; PATCH and DELETE ignore the key', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const key = randomUUID();
    const first = await client.post('/links', LINK, { 'idempotency-key': key });
    const again = await client.post('/links', LINK, { 'idempotency-key': key });
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(again.body).toEqual(first.body);
    expectError(await client.post('/links', { ...LINK, name: 'Other' }, { 'idempotency-key': key }), 409, 'idempotency_key_reused');
    expectError(await client.post('/links', LINK, { 'idempotency-key': 'k'.repeat(256) }), 400, 'invalid_request', 'Idempotency-Key');
    expect((await client.get('/links')).body.data).toHaveLength(1);

    const link = first.body.data;
    const patchKey = randomUUID();
    expect((await client.call('PATCH', `/links/${link.id}`, { name: 'A' }, { 'idempotency-key': patchKey })).body.data.name).toBe('A');
    const second = await client.call('PATCH', `/links/${link.id}`, { name: 'B' }, { 'idempotency-key': patchKey });
    expect([second.status, second.body.data.name, second.headers.get('idempotent-replayed')]).toEqual([200, 'B', null]);
    const deleteKey = randomUUID();
    expect((await client.call('DELETE', `/links/${link.id}`, undefined, { 'idempotency-key': deleteKey })).status).toBe(200);
    expectError(await client.call('DELETE', `/links/${link.id}`, undefined, { 'idempotency-key': deleteKey }), 404, 'not_found');

    const customerKey = randomUUID();
    const made = await client.post('/customers', { email: 'idem@shop.example' }, { 'idempotency-key': customerKey });
    const replayed = await client.post('/customers', { email: 'idem@shop.example' }, { 'idempotency-key': customerKey });
    expect([made.status, replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body.data.id]).toEqual([201, 201, 'true', made.body.data.id]);
  });

  it('lists: default 25, limit 1 to 100, cursors bound to their list and business', async () => {
    const { client } = await businessWithKey(suite.api, true);
    for (let i = 0; i < 26; i++) await createLink(client, { name: `n${i}` });
    const page = await client.get('/links');
    expect([page.body.data.length, page.body.has_more, typeof page.body.next_cursor]).toEqual([25, true, 'string']);
    expect((await client.get(`/links?cursor=${page.body.next_cursor}`)).body).toMatchObject({ has_more: false, next_cursor: null, data: [expect.objectContaining({ name: 'n0' })] });
    expect((await client.get('/links?limit=100')).body).toMatchObject({ has_more: false, next_cursor: null });
    for (const query of ['limit=0', 'limit=101', 'limit=1.5', 'limit=']) expectError(await client.get(`/links?${query}`), 400, 'invalid_request', 'limit');
    await client.post('/customers', { email: 'a@shop.example' });
    await client.post('/customers', { email: 'b@shop.example' });
    const customersCursor = (await client.get('/customers?limit=1')).body.next_cursor;
    expectError(await client.get(`/links?cursor=${customersCursor}`), 400, 'invalid_request', 'cursor');
    expectError(await client.get(`/customers?cursor=${page.body.next_cursor}`), 400, 'invalid_request', 'cursor');
    const other = await businessWithKey(suite.api, true);
    expectError(await other.client.get(`/links?cursor=${page.body.next_cursor}`), 400, 'invalid_request', 'cursor');
    for (const query of ['limit=101', 'blocked=1', 'email=', 'color=red']) expectError(await client.get(`/customers?${query}`), 400, 'invalid_request');
  });

  it("another business's link and customer are 404 on every route; filters on their ids list nothing", async () => {
    const mine = await businessWithKey(suite.api, true);
    const theirs = await businessWithKey(suite.api, true);
    const link = await createLink(theirs.client);
    const checkout = (await theirs.client.as(null).postOnce('/checkouts', { link_code: link.code, asset: 'USDC', network: 'ethereum', email: 'their@shop.example' })).body.data;
    const customerId = (await theirs.client.payment(checkout.payment_id)).customer_id;
    const routes: [string, string, unknown?][] = [
      ['GET', `/links/${link.id}`], ['PATCH', `/links/${link.id}`, { name: 'x' }], ['POST', `/links/${link.id}/archive`], ['POST', `/links/${link.id}/restore`], ['DELETE', `/links/${link.id}`],
      ['GET', `/customers/${customerId}`], ['PATCH', `/customers/${customerId}`, { name: 'x' }], ['POST', `/customers/${customerId}/block`], ['POST', `/customers/${customerId}/unblock`],
    ];
    for (const [method, path, body] of routes) expectError(await mine.client.call(method, path, body), 404, 'not_found');
    for (const query of [`link_id=${link.id}`, `customer_id=${customerId}`]) expect((await mine.client.get(`/payments?${query}`)).body).toEqual({ data: [], has_more: false, next_cursor: null });
    expect((await mine.client.get('/customers?email=their@shop.example')).body.data).toEqual([]);
    // the same address is a new customer of this business, not theirs
    const own = await mine.client.post('/customers', { email: 'their@shop.example' });
    expect(own.status).toBe(201);
    expect(own.body.data.id).not.toBe(customerId);
    expect((await theirs.client.get(`/customers/${customerId}`)).body.data).toMatchObject({ name: null, blocked: false, stats: { payments_count: 1 } });
  });

  it('paying through a link: the payment takes the link, its customer’s stats count it, GET /payments?customer_id lists it, customer.created is sent', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const link = await createLink(client, { metadata: { sku: 'M-1' } });
    const opened = await client.as(null).postOnce('/checkouts', { link_code: link.code, asset: 'USDC', network: 'ethereum', email: 'Pay@Shop.example' });
    expect(opened.status).toBe(201);
    expect(opened.body.data).toMatchObject({ kind: 'checkout', link_id: link.id, amount: 2_500, currency: 'USD', crypto: { amount: '25', received_amount: '0' } });
    await client.markSent(opened.body.data.id, 'exact');
    const paid = await eventually(() => client.payment(opened.body.data.payment_id), (p) => p.status === 'succeeded', { what: 'link payment succeeded' });
    expect(paid).toMatchObject({ link_id: link.id, url: null, amount: 2_500, amount_received: 2_500, metadata: { sku: 'M-1' }, method: { rail: 'crypto', amount: '25', expected_amount: '25' } });
    const customer = (await client.get(`/customers/${paid.customer_id}`)).body.data;
    expect(customer).toMatchObject({ kind: 'customer', email: 'Pay@Shop.example', name: null, blocked: false, note: '' });
    expect(customer.stats).toEqual({ payments_count: 1, incomplete_count: 0, volume: { amount: 2_500, currency: 'USD' }, average: { amount: 2_500, currency: 'USD' }, last_payment_at: paid.created_at, preferred_rail: 'crypto' });
    expect((await client.get(`/payments?customer_id=${customer.id}`)).body.data.map((p: { id: string }) => p.id)).toEqual([paid.id]);
    expect((await client.get(`/links/${link.id}`)).body.data.payments_count).toBe(1);
    const created = await linkEvents(client, 'customer.created');
    expect(created.map((e) => e.subject.id)).toEqual([customer.id]);
    // the link's later price leaves the payment's alone; a blocked customer's checkout writes nothing
    await client.patch(`/links/${link.id}`, { amount: 4_000 });
    expect((await client.payment(paid.id)).amount).toBe(2_500);
    await client.post(`/customers/${customer.id}/block`);
    expectError(await client.as(null).postOnce('/checkouts', { link_code: link.code, asset: 'USDC', network: 'ethereum', email: 'pay@shop.example' }), 403, 'customer_blocked', 'email');
    expect((await client.get(`/links/${link.id}`)).body.data.payments_count).toBe(1);
  });

  it('malformed customer bodies answer 400 with the envelope and change nothing', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const customer = (await client.post('/customers', { email: 'zed@shop.example', name: 'Zed' })).body.data;
    const created: [string, string | null][] = [
      ['null', null], ['[]', null], ['{"email":null}', 'email'], ['{"email":"a\\u0000@b.example"}', 'email'], ['{"email":"c@b.example","name":"x\\u0000y"}', 'name'],
      ['{"email":"d@b.example","note":"x\\ud800"}', 'note'], ['{"email":"e@b.example","note":"' + 'x'.repeat(1001) + '"}', 'note'], ['{"email":"f@b.example","blocked":true}', 'blocked'],
      ['{"email":"g@b.example","name":5}', 'name'], ['{"email":"' + 'x'.repeat(250) + '@b.example"}', 'email'],
    ];
    for (const [body, field] of created) {
      const answer = await raw(client, 'POST', '/customers', body);
      expect({ body: body.slice(0, 60), field: answer.body?.error?.field }).toEqual({ body: body.slice(0, 60), field });
      expectError(answer, 400, 'invalid_request');
    }
    for (const [body, field] of [['null', null], ['[]', null], ['{}', null], ['{"email":null}', 'email'], ['{"note":null}', 'note'], ['{"blocked":true}', 'blocked']] as const) {
      const answer = await raw(client, 'PATCH', `/customers/${customer.id}`, body);
      expect({ body, field: answer.body?.error?.field }).toEqual({ body, field });
      expectError(answer, 400, 'invalid_request');
    }
    expect((await client.get('/customers')).body.data).toEqual([customer]);
    expect(await linkEvents(client, 'customer.updated')).toEqual([]);
  });

  it('races decided on their streams: one customer per address among concurrent creations; an Idempotency-Key in use is 409; a delete and a checkout never both win', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const created = await Promise.all([1, 2, 3].map(() => client.post('/customers', { email: 'race@shop.example' })));
    expect(created.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    for (const answer of created.filter((a) => a.status === 409)) expectError(answer, 409, 'customer_exists', 'email');
    expect((await client.get('/customers')).body.data).toHaveLength(1);

    const key = randomUUID();
    const links = await Promise.all([1, 2, 3].map(() => client.post('/links', LINK, { 'idempotency-key': key })));
    for (const answer of links.filter((a) => a.status !== 201)) expectError(answer, 409, 'idempotency_key_in_use');
    expect((await client.get('/links')).body.data).toHaveLength(1);

    const link = await createLink(client, { name: 'Race' });
    const [deleted, opened] = await Promise.all([client.call('DELETE', `/links/${link.id}`), client.as(null).postOnce('/checkouts', { link_code: link.code, asset: 'USDC', network: 'ethereum' })]);
    if (deleted.status === 200) {
      expectError(opened, 404, 'link_not_found', 'link_code');
      expect((await client.get('/payments?limit=100')).body.data.filter((p: { link_id: string | null }) => p.link_id === link.id)).toEqual([]);
    } else {
      expectError(deleted, 409, 'link_has_payments');
      expect(opened.status).toBe(201);
      expect((await client.get(`/links/${link.id}`)).body.data.payments_count).toBe(1);
    }
  });

  it('fixed: a link keeps its rails and coins in one canonical form — a pair named twice is kept once, the same lists in another order change nothing', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const usdc = { asset: 'USDC', network: 'ethereum' };
    const sol = { asset: 'SOL', network: 'solana' };
    const link = await createLink(client, { rails: ['card', 'crypto'], assets: [sol, usdc, usdc] });
    // was: rails ['card', 'crypto'] and assets [SOL, USDC, USDC] as sent
    expect({ rails: link.rails, assets: link.assets }).toEqual({ rails: ['crypto', 'card'], assets: [usdc, sol] });
    const same = await client.patch(`/links/${link.id}`, { rails: ['card', 'crypto'], assets: [sol, usdc] });
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual(link); // was: a LinkUpdated with the order swapped, and a link.updated event
    expect(await linkEvents(client, 'link.updated')).toEqual([]);
  });

  it('fixed: a customer who paid by card through a link has preferred_rail card (the card method was not counted)', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const link = await createLink(client, { rails: ['card'] });
    const opened = await client.as(null).postOnce('/checkouts', { link_code: link.code, rail: 'card', email: 'card@shop.example', country: 'US' });
    expect(opened.status).toBe(201);
    const attempt = await client.as(null).postOnce(`/checkouts/${opened.body.data.id}/card-attempts`, {});
    expect(attempt.status).toBe(201);
    const secureUrl: string = attempt.body.data.card.attempt.secure_url;
    const form = new URLSearchParams({ number: '4242 4242 4242 4242', expiry: '12/39', cvc: '123', name: 'Card Payer' });
    const back = await fetch(secureUrl, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(back.status).toBe(303);
    const attemptId = new URL(back.headers.get('location')!).searchParams.get('attempt');
    expect((await client.as(null).post(`/checkouts/${opened.body.data.id}/card-attempts/${attemptId}/confirm`)).status).toBe(200);
    const paid = await eventually(() => client.payment(opened.body.data.payment_id), (p) => p.status === 'succeeded', { what: 'card link payment succeeded' });
    expect(paid.method.rail).toBe('card');
    const stats = await eventually(
      async () => (await client.get(`/customers/${paid.customer_id}`)).body.data.stats,
      (s) => s.incomplete_count === 0,
      { what: 'the customer’s stats count the payment as succeeded' },
    );
    expect(stats).toEqual({ payments_count: 1, incomplete_count: 0, volume: { amount: 2_500, currency: 'USD' }, average: { amount: 2_500, currency: 'USD' }, last_payment_at: paid.created_at, preferred_rail: 'card' });
    // the customer.updated of a later block carries the same stats (the events' read side folds the card method too)
    await client.post(`/customers/${paid.customer_id}/block`);
    const updated = await linkEvents(client, 'customer.updated');
    expect(updated.map((e) => (e.data.stats as { preferred_rail: string | null }).preferred_rail)).toEqual(['card']);
  });
});
