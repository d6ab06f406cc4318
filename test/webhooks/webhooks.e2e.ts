import { Webhook } from 'standardwebhooks';
import { BusinessService, CreatedBusiness } from '@lib/businesses';
import { DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { WebhooksModule } from '../../apps/api/src/webhooks/webhooks.module';
import { settledHead } from '../support/log-head';
import { TestApi, businessWithKey, startApp, startTestApi } from '../support/fixtures';
import { Receiver, WebhookWorker, appendPayment, eventually, startReceiver, startWebhookWorker, settledPosition } from './support';
import { REFUSED_URLS } from './refused-urls';

type Json = any;

interface Reply {
  status: number;
  body: Json;
  headers: Headers;
}

function client(api: () => TestApi) {
  return async (method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${api().base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
}

describe('webhooks over HTTP (issue 5), on PostgreSQL with WEBHOOK_ALLOW_PRIVATE_URLS', () => {
  let api: TestApi;
  let worker: WebhookWorker;
  let store: EventStore;
  let db: Database;
  const receivers: Receiver[] = [];
  const call = client(() => api);

  const receiver = async (respond?: Receiver['respond']) => {
    const r = await startReceiver(respond);
    receivers.push(r);
    return r;
  };
  const business = (): Promise<CreatedBusiness> => businessWithKey(api, true, 'Shop', { contact: false });
  const createHook = async (shop: CreatedBusiness, body: Record<string, unknown>) => {
    const res = await call('POST', '/webhooks', { key: shop.secret_key, body });
    expect(res.status).toBe(201);
    return res.body.data as Json;
  };
  const pay = (shop: CreatedBusiness, paymentId: string, statuses: string[], metadata: Record<string, string> = {}) =>
    appendPayment(store, paymentId, [
      { type: 'TestPaymentCreated', data: { payment_id: paymentId, business_id: shop.business.id, mode: 'test', amount: 2500, metadata } },
      ...statuses.map((status) => ({ type: 'TestPaymentStatusChanged', data: { status } })),
    ]);
  const settle = async () => expect(await worker.runner.waitFor(await settledPosition(store), 20_000)).toBe(true);
  /** A new business with a receiver and an endpoint for "*", sent a payment's two events (`paymentId`, created and succeeded). */
  const shopWithTwoDeliveries = async (paymentId: string) => {
    const shop = await business();
    const rx = await receiver();
    const hook = await createHook(shop, { url: rx.url, event_types: ['*'] });
    await pay(shop, paymentId, ['succeeded']);
    await settle();
    await eventually(async () => (await call('GET', `/webhooks/${hook.id}/deliveries`, { key: shop.secret_key })).body.data.length === 2);
    return { shop, rx, hook };
  };
  /** The secret of a new restricted test key of `shop` with `permissions`. */
  const restrictedKey = async (shop: CreatedBusiness, permissions: string) =>
    (await api.app.get(BusinessService).createKey({ businessId: shop.business.id, kind: 'restricted', mode: 'test', permissions })).secret;

  beforeAll(async () => {
    // the API alone (no projections, no dispatcher); the test worker runs them with test event sources
    // (PROJECTION_CATCH_UP_MS=off: the app's own events projection, on the real sources, must never apply the test worker's batches)
    api = await startApp('postgres', { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ROLE: 'api', PROJECTION_CATCH_UP_MS: 'off' }, 'whapi');
    store = api.app.get(EVENT_STORE);
    db = api.app.get(DATABASE);
    worker = await startWebhookWorker(store, db, { schedule: [0, 100, 100, 100, 100, 100, 100, 100] });
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  describe('endpoints', () => {
    it('creates an endpoint and shows its whole secret once; secret_hint everywhere else', async () => {
      const shop = await business();
      const res = await call('POST', '/webhooks', {
        key: shop.secret_key,
        body: { url: 'https://hooks.example.com/in', event_types: ['payment.succeeded', 'payment.failed'], description: ' Orders ' },
      });
      expect(res.status).toBe(201);
      const created = res.body.data;
      expect(created).toEqual({
        kind: 'webhook',
        id: expect.stringMatching(/^whk_[0-9A-Za-z]{24}$/),
        url: 'https://hooks.example.com/in',
        description: 'Orders',
        event_types: ['payment.succeeded', 'payment.failed'],
        enabled: true,
        secret_hint: `whsec_••••${created.secret.slice(-4)}`,
        created_at: expect.stringMatching(/Z$/),
        updated_at: created.created_at,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
      const { secret, ...shown } = created;
      const got = await call('GET', `/webhooks/${created.id}`, { key: shop.secret_key });
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(shown);
      const list = await call('GET', '/webhooks', { key: shop.secret_key });
      expect(list.body).toEqual({ data: [shown], has_more: false, next_cursor: null });
      // the secret is nowhere in the log (read once the log shows everything written so far)
      await settledHead(store);
      const log = JSON.stringify(await store.readAll({ maxCount: 100_000 }), (_k, v) => (typeof v === 'bigint' ? String(v) : v));
      expect(log).not.toContain(secret.slice(6));
    });

    it('ignores the Idempotency-Key on create and rotate: a retry is a new endpoint, a replay never returns a secret; both answers are Cache-Control: no-store', async () => {
      const shop = await business();
      const body = { url: 'https://hooks.example.com/in', event_types: ['*'] };
      const headers = { 'idempotency-key': 'same-key' };
      const first = await call('POST', '/webhooks', { key: shop.secret_key, body, headers });
      const second = await call('POST', '/webhooks', { key: shop.secret_key, body, headers });
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(second.headers.get('idempotent-replayed')).toBeNull();
      expect(second.body.data.id).not.toBe(first.body.data.id);
      expect(second.body.data.secret).not.toBe(first.body.data.secret);
      const r1 = await call('POST', `/webhooks/${first.body.data.id}/rotate-secret`, { key: shop.secret_key, headers });
      const r2 = await call('POST', `/webhooks/${first.body.data.id}/rotate-secret`, { key: shop.secret_key, headers });
      expect([r1.status, r2.status]).toEqual([200, 200]);
      expect(r2.headers.get('idempotent-replayed')).toBeNull();
      expect(new Set([first.body.data.secret, r1.body.data.secret, r2.body.data.secret]).size).toBe(3);
      expect((await call('GET', '/webhooks', { key: shop.secret_key })).body.data).toHaveLength(2);
      // a secret shown once is kept by no cache (audit F6); a read, holding only the hint, is not marked
      for (const shown of [first, second, r1, r2]) expect(shown.headers.get('cache-control')).toBe('no-store');
      expect((await call('GET', `/webhooks/${first.body.data.id}`, { key: shop.secret_key })).headers.get('cache-control')).toBeNull();
    });

    it('refuses bad bodies with 400 invalid_request naming the field', async () => {
      const shop = await business();
      const cases: [Json, string][] = [
        [{ event_types: ['*'] }, 'url'],
        [{ url: 5, event_types: ['*'] }, 'url'],
        [{ url: 'https://hooks.example.com/in' }, 'event_types'],
        [{ url: 'https://hooks.example.com/in', event_types: [] }, 'event_types'],
        [{ url: 'https://hooks.example.com/in', event_types: 'payment.succeeded' }, 'event_types'],
        [{ url: 'https://hooks.example.com/in', event_types: ['payment.succeeded', 'payment.exploded'] }, 'event_types.1'],
        [{ url: 'https://hooks.example.com/in', event_types: ['*', 'payment.succeeded'] }, 'event_types'],
        [{ url: 'https://hooks.example.com/in', event_types: ['webhook.test'] }, 'event_types.0'],
        [{ url: 'https://hooks.example.com/in', event_types: ['*'], enabled: 'yes' }, 'enabled'],
        [{ url: 'https://hooks.example.com/in', event_types: ['*'], enabled: null }, 'enabled'],
        [{ url: 'https://hooks.example.com/in', event_types: ['*'], description: 'x'.repeat(501) }, 'description'],
        [{ url: 'https://hooks.example.com/in', event_types: ['*'], secret: 'whsec_mine' }, 'secret'],
        [{ url: 'ftp://hooks.example.com/in', event_types: ['*'] }, 'url'],
        [{ url: `https://hooks.example.com/${'a'.repeat(2048)}`, event_types: ['*'] }, 'url'],
      ];
      for (const [body, field] of cases) {
        const res = await call('POST', '/webhooks', { key: shop.secret_key, body });
        expect({ body, status: res.status, code: res.body.error.code, field: res.body.error.field }).toEqual({ body, status: 400, code: 'invalid_request', field });
      }
      expect((await call('GET', '/webhooks', { key: shop.secret_key })).body.data).toEqual([]);
    });

    it('PATCH changes only what is sent; unknown, foreign and deleted endpoints are 404', async () => {
      const shop = await business();
      const other = await business();
      const hook = await createHook(shop, { url: 'https://hooks.example.com/in', event_types: ['payment.succeeded'], description: 'a' });
      const patch = (id: string, body: unknown, key = shop.secret_key) => call('PATCH', `/webhooks/${id}`, { key, body });
      const changed = await patch(hook.id, { event_types: ['payment.failed', 'payment.succeeded'], enabled: false });
      expect(changed.status).toBe(200);
      expect(changed.body.data).toMatchObject({ url: hook.url, description: 'a', event_types: ['payment.succeeded', 'payment.failed'], enabled: false, secret_hint: hook.secret_hint });
      expect(changed.body.data.secret).toBeUndefined();
      expect(Date.parse(changed.body.data.updated_at)).toBeGreaterThan(Date.parse(hook.updated_at));
      expect((await call('GET', `/webhooks/${hook.id}`, { key: shop.secret_key })).body.data).toEqual(changed.body.data);
      expect((await patch(hook.id, { url: 'https://other.example.com/x', description: 'b' })).body.data).toMatchObject({ url: 'https://other.example.com/x', description: 'b', enabled: false });
      // a body naming nothing to change is refused, as on every PATCH route (@ChangeBody, decision 0039 addendum of 2026-11-28), and changes nothing
      const before = (await call('GET', `/webhooks/${hook.id}`, { key: shop.secret_key })).body.data;
      const same = await patch(hook.id, {});
      expect([same.status, same.body.error?.code, same.body.error?.field]).toEqual([400, 'invalid_request', null]);
      expect((await call('GET', `/webhooks/${hook.id}`, { key: shop.secret_key })).body.data).toEqual(before);
      for (const [body, field] of [
        [{ url: null }, 'url'],
        [{ url: 'https://169.254.169.254/x' }, 'url'],
        [{ event_types: [] }, 'event_types'],
        [{ enabled: null }, 'enabled'],
        [{ description: null }, 'description'],
        [{ kind: 'webhook' }, 'kind'],
      ] as [Json, string][]) {
        const res = await patch(hook.id, body);
        expect({ body, status: res.status, field: res.body.error?.field }).toEqual({ body, status: 400, field });
      }
      expect((await patch('whk_nope', { enabled: true })).status).toBe(404);
      expect((await patch('not-an-id', { enabled: true })).status).toBe(404);
      expect((await patch(hook.id, { enabled: true }, other.secret_key)).body.error.code).toBe('not_found');
      expect((await call('GET', `/webhooks/${hook.id}`, { key: other.secret_key })).status).toBe(404);
      expect((await call('DELETE', `/webhooks/${hook.id}`, { key: other.secret_key })).status).toBe(404);
      const deleted = await call('DELETE', `/webhooks/${hook.id}`, { key: shop.secret_key });
      expect(deleted.status).toBe(200);
      expect(deleted.body.data).toMatchObject({ id: hook.id, kind: 'webhook', deleted: true });
      expect((await call('GET', `/webhooks/${hook.id}`, { key: shop.secret_key })).status).toBe(404);
      expect((await patch(hook.id, { enabled: true })).status).toBe(404);
      expect((await call('DELETE', `/webhooks/${hook.id}`, { key: shop.secret_key })).status).toBe(404);
      expect((await call('POST', `/webhooks/${hook.id}/rotate-secret`, { key: shop.secret_key })).status).toBe(404);
      expect((await call('GET', '/webhooks', { key: shop.secret_key })).body.data).toEqual([]);
    });

    it('allows 16 endpoints per business (409 webhook_limit beyond); deleting one frees a place', async () => {
      const shop = await business();
      const body = { url: 'https://hooks.example.com/in', event_types: ['*'] };
      const made = await Promise.all(Array.from({ length: 20 }, () => call('POST', '/webhooks', { key: shop.secret_key, body })));
      expect(made.filter((r) => r.status === 201)).toHaveLength(16);
      const refused = made.filter((r) => r.status !== 201);
      expect(refused).toHaveLength(4);
      for (const r of refused) expect(r.body.error).toMatchObject({ code: 'webhook_limit' });
      expect(refused[0].status).toBe(409);
      const list = await call('GET', '/webhooks?limit=10', { key: shop.secret_key });
      expect(list.body.data).toHaveLength(10);
      expect(list.body.has_more).toBe(true);
      const rest = await call('GET', `/webhooks?limit=10&cursor=${list.body.next_cursor}`, { key: shop.secret_key });
      expect(rest.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(new Set([...list.body.data, ...rest.body.data].map((h: Json) => h.id)).size).toBe(16);
      await call('DELETE', `/webhooks/${list.body.data[0].id}`, { key: shop.secret_key });
      expect((await call('POST', '/webhooks', { key: shop.secret_key, body })).status).toBe(201);
      expect((await call('POST', '/webhooks', { key: shop.secret_key, body })).status).toBe(409);
      // another business has its own places
      expect((await call('POST', '/webhooks', { key: (await business()).secret_key, body })).status).toBe(201);
    });
  });

  describe('deliveries', () => {
    it('a subscriber receives signed, verifiable deliveries of its payments’ events, and reads them back', async () => {
      const shop = await business();
      const rx = await receiver();
      const hook = await createHook(shop, { url: rx.url, event_types: ['payment.succeeded', 'payment.underpaid'] });
      await pay(shop, 'pmt_e2e1', ['underpaid', 'succeeded'], { order_id: '42' });
      const requests = await rx.waitFor(2);
      const verifier = new Webhook(hook.secret);
      const payloads = requests.map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as Json);
      expect(payloads.map((p) => p.type).sort()).toEqual(['payment.succeeded', 'payment.underpaid']);
      const succeeded = payloads.find((p) => p.type === 'payment.succeeded');
      expect(succeeded).toEqual({
        id: expect.stringMatching(/^evt_/),
        kind: 'event',
        type: 'payment.succeeded',
        subject: { kind: 'payment', id: 'pmt_e2e1' },
        data: expect.objectContaining({ kind: 'payment', id: 'pmt_e2e1', status: 'succeeded', metadata: { order_id: '42' } }),
        actor: { kind: 'api_key', id: 'key_test', name: null },
        mode: 'test',
        api_version: 'v1',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      for (const r of requests) {
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['webhook-id']).toBe(JSON.parse(r.body).id);
      }
      // the event reads back as it was sent
      const event = await call('GET', `/events/${succeeded.id}`, { key: shop.secret_key });
      expect(event.status).toBe(200);
      expect(event.body.data).toEqual(succeeded);
      const log = await eventually(async () => {
        const res = await call('GET', `/webhooks/${hook.id}/deliveries`, { key: shop.secret_key });
        return res.body.data.length === 2 && res.body.data.every((d: Json) => d.status === 'succeeded') ? res.body : null;
      });
      expect(log.data.map((d: Json) => d.event_type)).toEqual(['payment.succeeded', 'payment.underpaid']); // newest first
      expect(log.data[0]).toEqual({
        kind: 'webhook_delivery',
        id: expect.stringMatching(/^dlv_/),
        webhook_id: hook.id,
        event_id: succeeded.id,
        event_type: 'payment.succeeded',
        subject: { kind: 'payment', id: 'pmt_e2e1' },
        status: 'succeeded',
        response_status: 200,
        duration_ms: expect.any(Number),
        attempt: 1,
        attempts: [{ at: expect.any(String), response_status: 200, duration_ms: expect.any(Number), trigger: 'automatic', error: null }],
        next_retry_at: null,
        request_headers: {
          'content-type': 'application/json',
          'user-agent': expect.any(String),
          'webhook-id': succeeded.id,
          'webhook-timestamp': expect.stringMatching(/^\d+$/),
          'webhook-signature': expect.stringMatching(/^v1,/),
        },
        payload: succeeded,
        created_at: succeeded.created_at,
      });
      expect(JSON.stringify(log)).not.toContain(hook.secret.slice(6));
      const one = await call('GET', `/webhook_deliveries/${log.data[0].id}`, { key: shop.secret_key });
      expect(one.body.data).toEqual(log.data[0]);
    });

    it('filters the delivery log; 404 for unknown or deleted endpoints; 400 for bad filters and foreign cursors', async () => {
      const shop = await business();
      const rx = await receiver((request) => ({ status: JSON.parse(request.body).type === 'payment.failed' ? 500 : 200 }));
      const hook = await createHook(shop, { url: rx.url, event_types: ['*'] });
      const other = await createHook(shop, { url: rx.url, event_types: ['payment.created'] });
      await pay(shop, 'pmt_f1', ['succeeded']);
      await pay(shop, 'pmt_f2', ['failed']);
      await settle();
      await eventually(async () => {
        const res = await call('GET', `/webhook_deliveries?webhook_id=${hook.id}&status=retrying`, { key: shop.secret_key });
        return res.body.data.length === 0 || (res.body.data.length === 1 && res.body.data[0].attempt >= 1);
      });
      const list = (query: string, path = `/webhooks/${hook.id}/deliveries`) => call('GET', `${path}${query}`, { key: shop.secret_key });
      const types = async (query: string, path?: string) => (await list(query, path)).body.data.map((d: Json) => `${d.subject.id}:${d.event_type}`);
      expect(await types('')).toEqual(['pmt_f2:payment.failed', 'pmt_f2:payment.created', 'pmt_f1:payment.succeeded', 'pmt_f1:payment.created']);
      expect(await types('?subject_id=pmt_f1')).toEqual(['pmt_f1:payment.succeeded', 'pmt_f1:payment.created']);
      expect(await types('?event_type=payment.created')).toEqual(['pmt_f2:payment.created', 'pmt_f1:payment.created']);
      expect(await types('?status=succeeded&subject_id=pmt_f2')).toEqual(['pmt_f2:payment.created']);
      const failedOne = (await list('?event_type=payment.failed')).body.data[0];
      expect(failedOne.status).not.toBe('succeeded');
      expect(await types(`?event_id=${failedOne.event_id}`)).toEqual(['pmt_f2:payment.failed']);
      // the general list mirrors it with webhook_id, and covers every endpoint without
      expect(await types(`?webhook_id=${hook.id}`, '/webhook_deliveries')).toEqual(await types(''));
      expect(await types('?event_type=payment.created', '/webhook_deliveries')).toEqual([
        'pmt_f2:payment.created',
        'pmt_f2:payment.created',
        'pmt_f1:payment.created',
        'pmt_f1:payment.created',
      ]);
      expect(await types(`?webhook_id=${other.id}`, '/webhook_deliveries')).toEqual(['pmt_f2:payment.created', 'pmt_f1:payment.created']);
      expect((await list('', '/webhook_deliveries?webhook_id=whk_unknown')).body.data).toEqual([]);
      // pages
      const page1 = await list('?limit=3');
      expect(page1.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
      const page2 = await list(`?limit=3&cursor=${page1.body.next_cursor}`);
      expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
      expect([...page1.body.data, ...page2.body.data].map((d: Json) => d.id)).toEqual((await list('')).body.data.map((d: Json) => d.id));
      // 400: bad values, unknown parameters, foreign cursors (another list, or other filters)
      const general = await list('?limit=1', '/webhook_deliveries');
      const events = await call('GET', '/events?limit=1', { key: shop.secret_key });
      for (const query of [
        '?status=pending',
        '?status=',
        '?event_type=payment.exploded',
        '?event_id=pmt_123',
        '?subject_id=nope',
        '?limit=0',
        '?limit=101',
        '?limit=x',
        '?webhook_id=whk_1',
        '?colour=blue',
        '?status=failed&status=succeeded',
        `?cursor=${general.body.next_cursor}`,
        `?cursor=${events.body.next_cursor}`,
        `?status=failed&cursor=${page1.body.next_cursor}`,
        '?cursor=!!!',
      ]) {
        const res = await list(query);
        expect({ query, status: res.status, code: res.body.error?.code }).toEqual({ query, status: 400, code: 'invalid_request' });
      }
      expect((await list('?webhook_id=nope', '/webhook_deliveries')).status).toBe(400);
      // 404: unknown, another business's, deleted
      expect((await list('', '/webhooks/whk_unknown/deliveries')).status).toBe(404);
      const stranger = await business();
      expect((await call('GET', `/webhooks/${hook.id}/deliveries`, { key: stranger.secret_key })).status).toBe(404);
      expect((await call('GET', `/webhook_deliveries/${failedOne.id}`, { key: stranger.secret_key })).status).toBe(404);
      expect((await call('GET', `/webhook_deliveries?webhook_id=${hook.id}`, { key: stranger.secret_key })).body.data).toEqual([]);
      expect((await call('GET', '/webhook_deliveries/dlv_unknown', { key: shop.secret_key })).status).toBe(404);
      await call('DELETE', `/webhooks/${hook.id}`, { key: shop.secret_key });
      expect((await list('')).status).toBe(404);
      expect((await list(`?webhook_id=${hook.id}`, '/webhook_deliveries')).body.data.length).toBe(4); // the log stays readable
    });

    it('sends a test event to an endpoint and resends a delivery, now, recording the trigger', async () => {
      const shop = await business();
      let fail = true;
      const rx = await receiver(() => ({ status: fail ? 500 : 200 }));
      const hook = await createHook(shop, { url: rx.url, event_types: ['payment.failed'], enabled: false });
      const test = await call('POST', `/webhooks/${hook.id}/test`, { key: shop.secret_key });
      expect(test.status).toBe(201);
      expect(test.body.data).toMatchObject({
        webhook_id: hook.id,
        event_type: 'webhook.test',
        subject: { kind: 'webhook', id: hook.id },
        status: 'failed',
        response_status: 500,
        attempt: 1,
        attempts: [{ trigger: 'test', response_status: 500 }],
        next_retry_at: null,
        payload: { kind: 'event', type: 'webhook.test', data: { kind: 'webhook', id: hook.id, url: rx.url }, mode: 'test', api_version: 'v1' },
      });
      expect(test.body.data.payload.data.secret).toBeUndefined();
      expect(new Webhook(hook.secret).verify(rx.requests[0].body, rx.requests[0].headers as Record<string, string>)).toEqual(test.body.data.payload);
      fail = false;
      const resent = await call('POST', `/webhook_deliveries/${test.body.data.id}/resend`, { key: shop.secret_key });
      expect(resent.status).toBe(200);
      expect(resent.body.data).toMatchObject({ id: test.body.data.id, status: 'succeeded', attempt: 2, response_status: 200 });
      expect(resent.body.data.attempts.map((a: Json) => a.trigger)).toEqual(['test', 'manual']);
      expect(rx.requests[1].body).toBe(rx.requests[0].body);
      expect(rx.requests[1].headers['webhook-id']).toBe(rx.requests[0].headers['webhook-id']);

      // a real delivery that failed for good: a resend lands it
      fail = true;
      await call('PATCH', `/webhooks/${hook.id}`, { key: shop.secret_key, body: { enabled: true } });
      await pay(shop, 'pmt_rs', ['failed']);
      const failed = await eventually(async () => {
        const res = await call('GET', `/webhooks/${hook.id}/deliveries?event_type=payment.failed&status=failed`, { key: shop.secret_key });
        return res.body.data[0];
      }, { timeoutMs: 20_000 });
      expect(failed.attempt).toBe(8);
      expect(failed.attempts.every((a: Json) => a.trigger === 'automatic')).toBe(true);
      fail = false;
      const again = await call('POST', `/webhook_deliveries/${failed.id}/resend`, { key: shop.secret_key });
      expect(again.body.data).toMatchObject({ status: 'succeeded', attempt: 9, next_retry_at: null });
      expect(again.body.data.attempts[8]).toMatchObject({ trigger: 'manual', response_status: 200, error: null });
      expect((await call('POST', '/webhook_deliveries/dlv_nope/resend', { key: shop.secret_key })).status).toBe(404);
      expect((await call('POST', '/webhooks/whk_nope/test', { key: shop.secret_key })).status).toBe(404);
      // a deleted endpoint's deliveries cannot be resent
      await call('DELETE', `/webhooks/${hook.id}`, { key: shop.secret_key });
      const gone = await call('POST', `/webhook_deliveries/${failed.id}/resend`, { key: shop.secret_key });
      expect(gone.status).toBe(404);
      expect(gone.body.error.message).toMatch(/deleted/);
    });

    it('limits test events and resends together to 10 per minute per business (429 rate_limited, Retry-After)', async () => {
      const shop = await business();
      const other = await business();
      const rx = await receiver();
      const hook = await createHook(shop, { url: rx.url, event_types: ['*'] });
      const otherHook = await createHook(other, { url: rx.url, event_types: ['*'] });
      const first = await call('POST', `/webhooks/${hook.id}/test`, { key: shop.secret_key });
      for (let i = 0; i < 5; i++) expect((await call('POST', `/webhooks/${hook.id}/test`, { key: shop.secret_key })).status).toBe(201);
      for (let i = 0; i < 4; i++) expect((await call('POST', `/webhook_deliveries/${first.body.data.id}/resend`, { key: shop.secret_key })).status).toBe(200);
      const refused = await call('POST', `/webhook_deliveries/${first.body.data.id}/resend`, { key: shop.secret_key });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect((await call('POST', `/webhooks/${hook.id}/test`, { key: shop.secret_key })).status).toBe(429);
      expect(rx.requests).toHaveLength(10);
      // another business is not affected; reads are not limited
      expect((await call('POST', `/webhooks/${otherHook.id}/test`, { key: other.secret_key })).status).toBe(201);
      expect((await call('GET', `/webhooks/${hook.id}/deliveries`, { key: shop.secret_key })).status).toBe(200);
    });

    it('counts only test events and resends sent: 404s, a reused Idempotency-Key and replays spend none of the 10', async () => {
      const shop = await business();
      const rx = await receiver();
      const hook = await createHook(shop, { url: rx.url, event_types: ['*'] });
      // the audit's case: unknown endpoint and delivery first
      expect((await call('POST', '/webhooks/whk_nope/test', { key: shop.secret_key })).status).toBe(404);
      expect((await call('POST', '/webhook_deliveries/dlv_nope/resend', { key: shop.secret_key })).status).toBe(404);
      // a keyed test event (sent: counts), its replay (nothing sent) and the key on another route (409)
      const keyed = { key: shop.secret_key, headers: { 'idempotency-key': `test-${hook.id}` } };
      const first = await call('POST', `/webhooks/${hook.id}/test`, keyed);
      expect(first.status).toBe(201);
      const replay = await call('POST', `/webhooks/${hook.id}/test`, keyed);
      expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.data.id]).toEqual([201, 'true', first.body.data.id]);
      const reused = await call('POST', `/webhook_deliveries/${first.body.data.id}/resend`, keyed);
      expect([reused.status, reused.body.error.code]).toEqual([409, 'idempotency_key_reused']);
      // 2 resends and 7 more test events: 10 sent in all, each answered
      for (let i = 0; i < 2; i++) expect((await call('POST', `/webhook_deliveries/${first.body.data.id}/resend`, { key: shop.secret_key })).status).toBe(200);
      for (let i = 0; i < 7; i++) expect((await call('POST', `/webhooks/${hook.id}/test`, { key: shop.secret_key })).status).toBe(201);
      expect(rx.requests).toHaveLength(10);
      const refused = await call('POST', `/webhooks/${hook.id}/test`, { key: shop.secret_key });
      expect([refused.status, refused.body.error.code]).toEqual([429, 'rate_limited']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect((await call('POST', `/webhook_deliveries/${first.body.data.id}/resend`, { key: shop.secret_key })).status).toBe(429);
      expect(rx.requests).toHaveLength(10);
    });

    it('rotation: for the grace period deliveries carry both signatures, each verifying with its secret', async () => {
      const shop = await business();
      const rx = await receiver();
      const hook = await createHook(shop, { url: rx.url, event_types: ['payment.succeeded'] });
      const rotated = await call('POST', `/webhooks/${hook.id}/rotate-secret`, { key: shop.secret_key });
      expect(rotated.status).toBe(200);
      const { secret, previous_secret_expires_at, ...endpoint } = rotated.body.data;
      expect(secret).toMatch(/^whsec_/);
      expect(secret).not.toBe(hook.secret);
      expect(endpoint.secret_hint).toBe(`whsec_••••${secret.slice(-4)}`);
      expect(Date.parse(previous_secret_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
      expect((await call('GET', `/webhooks/${hook.id}`, { key: shop.secret_key })).body.data).toEqual(endpoint);
      await pay(shop, 'pmt_rot', ['succeeded']);
      const [request] = await rx.waitFor(1);
      const signatures = (request.headers['webhook-signature'] as string).split(' ');
      expect(signatures).toHaveLength(2);
      const headers = request.headers as Record<string, string>;
      expect(new Webhook(secret).verify(request.body, headers)).toMatchObject({ type: 'payment.succeeded' });
      expect(new Webhook(hook.secret).verify(request.body, headers)).toMatchObject({ type: 'payment.succeeded' });
      // each signature alone is the one of its secret
      expect(new Webhook(secret).verify(request.body, { ...headers, 'webhook-signature': signatures[0] })).toBeTruthy();
      expect(new Webhook(hook.secret).verify(request.body, { ...headers, 'webhook-signature': signatures[1] })).toBeTruthy();
      // a second rotation ends the first one's grace: the original secret no longer signs
      const again = (await call('POST', `/webhooks/${hook.id}/rotate-secret`, { key: shop.secret_key })).body.data;
      const test = await call('POST', `/webhooks/${hook.id}/test`, { key: shop.secret_key });
      expect(test.body.data.status).toBe('succeeded');
      const last = rx.requests[rx.requests.length - 1];
      const lastHeaders = last.headers as Record<string, string>;
      expect(lastHeaders['webhook-signature'].split(' ')).toHaveLength(2);
      expect(new Webhook(again.secret).verify(last.body, lastHeaders)).toBeTruthy();
      expect(new Webhook(secret).verify(last.body, lastHeaders)).toBeTruthy();
      expect(() => new Webhook(hook.secret).verify(last.body, lastHeaders)).toThrow();
      // once the grace period is over, one signature
      await db.query(`UPDATE webhook_secrets SET expires_at = now() - interval '1 second' WHERE webhook_id = $1 AND expires_at IS NOT NULL`, [hook.id]);
      await call('POST', `/webhooks/${hook.id}/test`, { key: shop.secret_key });
      const after = rx.requests[rx.requests.length - 1];
      expect((after.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
      expect(() => new Webhook(secret).verify(after.body, after.headers as Record<string, string>)).toThrow();
      expect(new Webhook(again.secret).verify(after.body, after.headers as Record<string, string>)).toBeTruthy();
    });
    it('concurrent rotations and updates: each answer is the endpoint as its own write left it (audit, 2026-11-28)', async () => {
      const shop = await business();
      const hook = await createHook(shop, { url: 'http://127.0.0.1:9/hook', event_types: ['payment.succeeded'] });
      const rotations = await Promise.all(Array.from({ length: 6 }, () => call('POST', `/webhooks/${hook.id}/rotate-secret`, { key: shop.secret_key })));
      for (const r of rotations) {
        expect(r.status).toBe(200);
        expect(r.body.data.secret_hint).toBe(`whsec_••••${r.body.data.secret.slice(-4)}`); // its own secret's hint, not a concurrent rotation's
      }
      const descriptions = ['one', 'two', 'three', 'four', 'five', 'six'];
      const updates = await Promise.all(descriptions.map((description) => call('PATCH', `/webhooks/${hook.id}`, { key: shop.secret_key, body: { description } })));
      expect(updates.map((u) => [u.status, u.body.data.description])).toEqual(descriptions.map((d) => [200, d]));
    });
  });

  describe('events', () => {
    it('lists a business’s events newest first with cursors and filters; one by id; 404 and 400 as elsewhere', async () => {
      const shop = await business();
      await pay(shop, 'pmt_ev', ['underpaid', 'succeeded']);
      await settle();
      const list = (query = '', key = shop.secret_key) => call('GET', `/events${query}`, { key });
      const all = await list();
      expect(all.status).toBe(200);
      expect(all.body.data.map((e: Json) => e.type)).toEqual(['payment.succeeded', 'payment.underpaid', 'payment.created', 'business.created']);
      const created = all.body.data[3];
      expect(created).toMatchObject({ subject: { kind: 'business', id: shop.business.id }, data: { kind: 'business', id: shop.business.id, name: 'Shop' }, mode: 'test' });
      const p1 = await list('?limit=2');
      const p2 = await list(`?limit=2&cursor=${p1.body.next_cursor}`);
      expect([...p1.body.data, ...p2.body.data]).toEqual(all.body.data);
      expect(p2.body.has_more).toBe(false);
      expect((await list('?type=payment.underpaid')).body.data.map((e: Json) => e.subject.id)).toEqual(['pmt_ev']);
      expect((await list('?subject_id=pmt_ev')).body.data).toHaveLength(3);
      for (const query of ['?type=payment', '?type=webhook.test', '?subject_id=x', '?limit=500', '?foo=1', `?type=payment.created&cursor=${p1.body.next_cursor}`]) {
        expect({ query, status: (await list(query)).status }).toEqual({ query, status: 400 });
      }
      expect((await call('GET', `/events/${all.body.data[0].id}`, { key: shop.secret_key })).body.data).toEqual(all.body.data[0]);
      const stranger = await business();
      expect((await call('GET', `/events/${all.body.data[0].id}`, { key: stranger.secret_key })).status).toBe(404);
      // (the stranger's business.created reaches the events projection on its own time: nothing here waited for it)
      await eventually(async () => (await list('', stranger.secret_key)).body.data.length > 0);
      expect((await list('', stranger.secret_key)).body.data.map((e: Json) => e.type)).toEqual(['business.created']);
      expect((await call('GET', '/events/evt_nope', { key: shop.secret_key })).status).toBe(404);
    });

    it('restricted keys: webhooks and events need their permissions; only events and deliveries of what the key can read', async () => {
      const { shop, rx, hook } = await shopWithTwoDeliveries('pmt_rk');
      await call('POST', `/webhooks/${hook.id}/test`, { key: shop.secret_key });
      const readOnly = await restrictedKey(shop, 'webhooks:read,events:read');
      const withPayments = await restrictedKey(shop, 'webhooks:write,events:read,payments:read');
      const none = await restrictedKey(shop, 'payments:read');

      expect((await call('GET', '/webhooks', { key: readOnly })).status).toBe(200);
      expect((await call('POST', '/webhooks', { key: readOnly, body: { url: rx.url, event_types: ['*'] } })).body.error.code).toBe('permission_denied');
      expect((await call('POST', `/webhooks/${hook.id}/test`, { key: readOnly })).status).toBe(403);
      expect((await call('GET', '/webhooks', { key: none })).status).toBe(403);
      expect((await call('GET', '/events', { key: none })).status).toBe(403);

      const types = async (path: string, key: string) => (await call('GET', path, { key })).body.data.map((e: Json) => e.type ?? e.event_type);
      expect(await types(`/webhooks/${hook.id}/deliveries`, readOnly)).toEqual(['webhook.test']);
      expect(await types(`/webhooks/${hook.id}/deliveries`, withPayments)).toEqual(['webhook.test', 'payment.succeeded', 'payment.created']);
      expect(await types('/events', readOnly)).toEqual([]);
      expect(await types('/events', withPayments)).toEqual(['payment.succeeded', 'payment.created']);
      const paymentDelivery = (await call('GET', `/webhooks/${hook.id}/deliveries?event_type=payment.created`, { key: withPayments })).body.data[0];
      expect((await call('GET', `/webhook_deliveries/${paymentDelivery.id}`, { key: readOnly })).status).toBe(404);
      expect((await call('GET', `/webhook_deliveries/${paymentDelivery.id}`, { key: withPayments })).status).toBe(200);
      expect((await call('GET', `/events/${paymentDelivery.event_id}`, { key: readOnly })).status).toBe(404);
    });

    // decision 0013, addendum of 2026-11-29 (audit "rest" finding 1): an endpoint is a way to read what it is sent
    it('restricted keys subscribe only to types they can read, and cannot change, rotate, test or resend an endpoint sent types they cannot read', async () => {
      const { shop, rx, hook } = await shopWithTwoDeliveries('pmt_rw');
      const hooksOnly = await restrictedKey(shop, 'webhooks:write');
      const withPayments = await restrictedKey(shop, 'webhooks:write,payments:read');
      const endpoints = async () => (await call('GET', '/webhooks', { key: shop.secret_key })).body.data;
      const before = await endpoints();
      const denied = (res: Reply, field: string | null) => {
        expect({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({ status: 403, code: 'permission_denied', field });
      };

      // create: "*" and any type whose resource the key cannot read are refused, nothing created
      denied(await call('POST', '/webhooks', { key: hooksOnly, body: { url: rx.url, event_types: ['*'] } }), 'event_types');
      denied(await call('POST', '/webhooks', { key: hooksOnly, body: { url: rx.url, event_types: ['payment.succeeded'] } }), 'event_types');
      denied(await call('POST', '/webhooks', { key: withPayments, body: { url: rx.url, event_types: ['*'] } }), 'event_types');
      denied(await call('POST', '/webhooks', { key: withPayments, body: { url: rx.url, event_types: ['payment.succeeded', 'customer.created'] } }), 'event_types');
      expect(await endpoints()).toEqual(before);
      // the catalogue's 400 still comes first
      expect((await call('POST', '/webhooks', { key: hooksOnly, body: { url: rx.url, event_types: ['payment.exploded'] } })).status).toBe(400);
      // types it reads: created, secret shown
      const own = await call('POST', '/webhooks', { key: withPayments, body: { url: rx.url, event_types: ['payment.succeeded', 'payment.failed'] } });
      expect(own.status).toBe(201);
      expect(own.body.data).toMatchObject({ event_types: ['payment.succeeded', 'payment.failed'], secret: expect.stringMatching(/^whsec_/) });

      // the full key's "*" endpoint: readable (it holds no secret), but not to be moved, re-subscribed, re-keyed, tested or resent
      const shown = (await call('GET', `/webhooks/${hook.id}`, { key: shop.secret_key })).body.data;
      expect((await call('GET', `/webhooks/${hook.id}`, { key: withPayments })).body.data).toEqual(shown);
      const deliveries = async () => (await call('GET', `/webhooks/${hook.id}/deliveries`, { key: shop.secret_key })).body.data;
      const logBefore = await deliveries();
      for (const body of [{ url: `${rx.url}/hijack` }, { event_types: ['payment.succeeded'] }, { enabled: false }, { description: 'mine' }]) {
        denied(await call('PATCH', `/webhooks/${hook.id}`, { key: withPayments, body }), null);
        denied(await call('PATCH', `/webhooks/${hook.id}`, { key: hooksOnly, body }), null);
      }
      denied(await call('POST', `/webhooks/${hook.id}/rotate-secret`, { key: withPayments }), null);
      denied(await call('POST', `/webhooks/${hook.id}/test`, { key: withPayments }), null);
      const paymentDelivery = logBefore.find((d: Json) => d.event_type === 'payment.created');
      // the key reads this delivery (a payment's), yet its endpoint is sent more than that
      expect((await call('GET', `/webhook_deliveries/${paymentDelivery.id}`, { key: withPayments })).status).toBe(200);
      denied(await call('POST', `/webhook_deliveries/${paymentDelivery.id}/resend`, { key: withPayments }), null);
      expect((await call('GET', `/webhooks/${hook.id}`, { key: shop.secret_key })).body.data).toEqual(shown);
      expect(await deliveries()).toEqual(logBefore);
      const signed = await call('POST', `/webhooks/${hook.id}/test`, { key: shop.secret_key });
      expect(signed.status).toBe(201);
      const [testRequest] = (await rx.waitFor(3)).filter((r) => JSON.parse(r.body).type === 'webhook.test');
      expect(testRequest.url).toBe(new URL(hook.url).pathname); // not moved
      expect(() => new Webhook(hook.secret).verify(testRequest.body, testRequest.headers as Record<string, string>)).not.toThrow(); // not re-keyed

      // its own endpoint: changed, rotated, tested; but not widened to a type it cannot read
      const mine = own.body.data;
      expect((await call('PATCH', `/webhooks/${mine.id}`, { key: withPayments, body: { description: 'mine', event_types: ['payment.created'] } })).status).toBe(200);
      denied(await call('PATCH', `/webhooks/${mine.id}`, { key: withPayments, body: { event_types: ['*'] } }), 'event_types');
      denied(await call('PATCH', `/webhooks/${mine.id}`, { key: withPayments, body: { url: `${rx.url}/x`, event_types: ['customer.updated'] } }), 'event_types');
      expect((await call('GET', `/webhooks/${mine.id}`, { key: shop.secret_key })).body.data).toMatchObject({ url: rx.url, description: 'mine', event_types: ['payment.created'] });
      expect((await call('POST', `/webhooks/${mine.id}/rotate-secret`, { key: withPayments })).status).toBe(200);
      expect((await call('POST', `/webhooks/${mine.id}/test`, { key: withPayments })).status).toBe(201);
      // the full secret key is unaffected
      expect((await call('PATCH', `/webhooks/${hook.id}`, { key: shop.secret_key, body: { description: 'full' } })).status).toBe(200);
    });
  });
});

describe('webhooks over HTTP without WEBHOOK_ALLOW_PRIVATE_URLS (embedded store)', () => {
  let api: TestApi;
  let worker: WebhookWorker;
  let shop: CreatedBusiness;
  const call = client(() => api);
  beforeAll(async () => {
    api = await startTestApi({});
    worker = await startWebhookWorker(api.app.get(EVENT_STORE), api.app.get(DATABASE), { startDispatcher: false });
    shop = await businessWithKey(api, true, 'Shop', { contact: false });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  it(`refuses every one of ${REFUSED_URLS.length} private, local or malformed URLs at create and at patch with 400 invalid_request, field url`, async () => {
    expect(REFUSED_URLS.length).toBeGreaterThanOrEqual(30);
    for (const [url] of REFUSED_URLS) {
      const res = await call('POST', '/webhooks', { key: shop.secret_key, body: { url, event_types: ['*'] } });
      expect({ url, status: res.status, code: res.body.error?.code, field: res.body.error?.field }).toEqual({ url, status: 400, code: 'invalid_request', field: 'url' });
      expect(res.body.error.message).toMatch(/^url /); // the field as it is named in the body (it read "Url must …")
    }
    const ok = await call('POST', '/webhooks', { key: shop.secret_key, body: { url: 'https://hooks.example.com/in', event_types: ['*'] } });
    expect(ok.status).toBe(201);
    for (const [url] of REFUSED_URLS) {
      const res = await call('PATCH', `/webhooks/${ok.body.data.id}`, { key: shop.secret_key, body: { url } });
      expect({ url, status: res.status, field: res.body.error?.field }).toEqual({ url, status: 400, field: 'url' });
    }
    expect((await call('GET', `/webhooks/${ok.body.data.id}`, { key: shop.secret_key })).body.data.url).toBe('https://hooks.example.com/in');
  });

  it('refuses at connect time what a host name resolves to (a test event to a name that rebinds to loopback)', async () => {
    const rebinding = await startTestApi({}, [WebhooksModule.withResolver(async () => [{ address: '127.0.0.1', family: 4 }])]);
    const projections = await startWebhookWorker(rebinding.app.get(EVENT_STORE), rebinding.app.get(DATABASE), { startDispatcher: false });
    try {
      const owner = await businessWithKey(rebinding, true, 'Shop', { contact: false });
      const made = await fetch(`${rebinding.base}/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.secret_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://rebind.example.com/hooks', event_types: ['*'] }),
      });
      expect(made.status).toBe(201);
      const { data } = (await made.json()) as Json;
      const test = await fetch(`${rebinding.base}/webhooks/${data.id}/test`, { method: 'POST', headers: { authorization: `Bearer ${owner.secret_key}` } });
      const delivery = ((await test.json()) as Json).data;
      expect(delivery).toMatchObject({ status: 'failed', response_status: null, attempts: [{ trigger: 'test', response_status: null }] });
      expect(delivery.attempts[0].error).toMatch(/^address refused: rebind\.example\.com resolves to 127\.0\.0\.1 is a loopback address/);
    } finally {
      await projections.stop();
      await rebinding.close();
    }
  });
});
