import createClient from 'openapi-fetch';
import type { components, paths } from '../../libs/client/src/openapi-types';

/**
 * A small integrator program, written the way an integrator would against the types
 * openapi-typescript generates from GET /api/v1/openapi.json, with openapi-fetch. The test
 * (test/client/typed-client.e2e.ts) type-checks it under --strict against types generated from
 * the served document (the import above is pointed at them) and then runs it against the app.
 */

type Payment = components['schemas']['Payment'];
type Checkout = components['schemas']['Checkout'];
type ErrorCode = components['schemas']['Error']['error']['code'];

export interface IntegratorResult {
  payment: Payment;
  checkout: Checkout;
  replayed: boolean;
  webhookId: string;
  webhookSecret: string;
  pagedIds: string[];
  pages: number;
  refused: ErrorCode | null;
}

export async function runIntegrator(baseUrl: string, secretKey: string, order: string, idempotencyKey: string): Promise<IntegratorResult> {
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${secretKey}` } });

  // a payment with a reference, metadata and the customer's e-mail
  const created = await api.POST('/payments', {
    body: { amount: 2500, currency: 'USD', description: `Order ${order}`, reference: `order-${order}`, metadata: { order_id: order, channel: 'web' }, customer_email: 'ann@example.com' },
  });
  if (!created.data) throw new Error(`create payment: ${created.error?.error.code}`);
  const payment: Payment = created.data.data;
  const code: string | null = payment.url === null ? null : (payment.url.split('/').pop() ?? null);
  if (code === null) throw new Error('the payment has no checkout page');

  // a checkout for it, with an Idempotency-Key: the same key and body answer the same checkout again
  const open = () =>
    api.POST('/checkouts', {
      params: { header: { 'Idempotency-Key': idempotencyKey } },
      body: { payment_code: code, asset: 'USDC', network: 'ethereum' },
    });
  const opened = await open();
  if (!opened.data) throw new Error(`open checkout: ${opened.error?.error.code}`);
  const again = await open();
  if (!again.data) throw new Error(`open checkout again: ${again.error?.error.code}`);
  const checkout: Checkout = opened.data.data;
  const replayed = again.response.headers.get('Idempotent-Replayed') === 'true' && again.data.data.id === checkout.id;

  // a webhook endpoint: its signing secret is in this answer only
  const hook = await api.POST('/webhooks', { body: { url: 'https://hooks.example.com/payments', event_types: ['payment.succeeded', 'payment.failed'], description: 'orders' } });
  if (!hook.data) throw new Error(`create webhook: ${hook.error?.error.code}`);
  const webhookSecret: string = hook.data.data.secret;
  const webhookId: string = hook.data.data.id;

  // every payment, two at a time, following next_cursor
  const pagedIds: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await api.GET('/payments', { params: { query: { limit: 2, ...(cursor ? { cursor } : {}) } } });
    if (!page.data) throw new Error(`list payments: ${page.error?.error.code}`);
    pages += 1;
    for (const p of page.data.data) pagedIds.push(p.id);
    if (!page.data.has_more || page.data.next_cursor === null) break;
    cursor = page.data.next_cursor;
  }

  // errors are typed too: branch on the code
  const missing = await api.GET('/payments/{id}', { params: { path: { id: 'pmt_doesnotexist' } } });
  const refused: ErrorCode | null = missing.error ? missing.error.error.code : null;

  return { payment, checkout, replayed, webhookId, webhookSecret, pagedIds, pages, refused };
}
