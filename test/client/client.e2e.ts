import { readFileSync } from 'node:fs';
import { createPaymentsClient, verifyWebhook, WebhookVerificationError } from '../../libs/client/src';
import { CLIENT_TYPES_PATH, clientTypes } from '../../scripts/generate-client';
import { TestApi, businessWithKey, startTestApi } from '../support/fixtures';
import { Receiver, startReceiver } from '../webhooks/support';

/**
 * Issue 18.5: the typed client in libs/client. Its types are generated from the document the
 * app serves and committed; this test fails while they are stale (run npm run client:generate).
 */
describe('the typed client (libs/client)', () => {
  let api: TestApi;
  let receiver: Receiver;
  let secretKey: string;

  beforeAll(async () => {
    // private receiver URLs allowed, so a test delivery reaches this process
    api = await startTestApi({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    receiver = await startReceiver();
    secretKey = (await businessWithKey(api, true, 'Client')).secret_key;
  });
  afterAll(async () => {
    await receiver?.close();
    await api?.close();
  });

  it('has types generated from the document the app serves (npm run client:generate when this fails)', async () => {
    const document = (await (await fetch(`${api.base}/openapi.json`)).json()) as object;
    const committed = readFileSync(CLIENT_TYPES_PATH, 'utf8');
    const fresh = await clientTypes(document);
    if (committed !== fresh) throw new Error(`${CLIENT_TYPES_PATH} is stale: run npm run client:generate and commit it`);
  });

  it('creates and reads a payment, typed; errors come back typed with their code', async () => {
    const client = createPaymentsClient({ baseUrl: api.base.replace(/\/api\/v1$/, ''), apiKey: secretKey });
    const created = await client.POST('/payments', { body: { amount: 4200, currency: 'USD', reference: 'inv-7', metadata: { invoice: '7' } } });
    expect(created.response.status).toBe(201);
    const payment = created.data!.data;
    expect(payment).toMatchObject({ kind: 'payment', status: 'pending', amount: 4200, reference: 'inv-7', metadata: { invoice: '7' } });

    const read = await client.GET('/payments/{id}', { params: { path: { id: payment.id } } });
    expect(read.data?.data.id).toBe(payment.id);
    const listed = await client.GET('/payments', { params: { query: { metadata: { invoice: '7' }, limit: 10 } } });
    expect(listed.data?.data.map((p) => p.id)).toEqual([payment.id]);

    const again = await client.POST('/payments', { body: { amount: 4200, currency: 'USD', reference: 'inv-7' } });
    expect(again.data?.data.id).toBe(payment.id);
    const refused = await client.POST('/payments', { body: { amount: 4300, currency: 'USD', reference: 'inv-7' } });
    expect(refused.data).toBeUndefined();
    expect(refused.response.status).toBe(409);
    expect(refused.error?.error).toMatchObject({ code: 'reference_in_use', request_id: refused.response.headers.get('service-request-id') });
    const anonymous = createPaymentsClient({ baseUrl: api.base });
    const unauthenticated = await anonymous.GET('/payments');
    expect(unauthenticated.error?.error.code).toBe('unauthenticated');
  });

  it('verifies a webhook delivery the service signed, and refuses a tampered one', async () => {
    const client = createPaymentsClient({ baseUrl: api.base, apiKey: secretKey });
    const hook = await client.POST('/webhooks', { body: { url: receiver.url, event_types: ['payment.succeeded'] } });
    const { id, secret } = hook.data!.data;
    const test = await client.POST('/webhooks/{id}/test', { params: { path: { id } } });
    expect(test.data?.data.status).toBe('succeeded');
    const [delivery] = await receiver.waitFor(1);

    const event = verifyWebhook(secret, delivery.body, delivery.headers);
    expect(event).toEqual(test.data!.data.payload);
    expect(event).toMatchObject({ kind: 'event', type: 'webhook.test', api_version: 'v1' });
    // Fetch API headers work the same
    const headers = new Headers(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
    expect(verifyWebhook(secret, Buffer.from(delivery.body), headers).id).toBe(event.id);

    expect(() => verifyWebhook(secret, delivery.body.replace('webhook.test', 'payment.succeeded'), delivery.headers)).toThrow(WebhookVerificationError);
    const rotated = await client.POST('/webhooks/{id}/rotate-secret', { params: { path: { id } } });
    expect(() => verifyWebhook(rotated.data!.data.secret, delivery.body, delivery.headers)).toThrow(WebhookVerificationError);
    const { 'webhook-signature': _dropped, ...unsigned } = delivery.headers;
    expect(() => verifyWebhook(secret, delivery.body, unsigned)).toThrow(WebhookVerificationError);
  });
});
