import { Webhook } from 'standardwebhooks';
import { BusinessService, operatorActor } from '@lib/businesses';
import { Client, TestApi, businessWithKey, startTestApi } from '../support/fixtures';
import { Receiver, startReceiver } from '../webhooks/support';

/**
 * Business suspension over HTTP (issue 19, B12), on the real app (embedded store, ROLE=all: the
 * dispatcher delivers webhooks): while suspended, creating payments, opening checkouts and
 * requesting a remainder answer 403 business_suspended on the very next request; a checkout
 * opened before can finish; GET /business shows it; a business.updated subscriber hears of both
 * the suspension and the reinstatement; reinstated, the business takes payments again.
 */
describe('a suspended business over HTTP', () => {
  let api: TestApi;
  let rx: Receiver;

  beforeAll(async () => {
    api = await startTestApi({ TRUSTED_PROXIES: 'loopback', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await api?.close();
    await rx?.close();
  });

  const refusedSuspended = (answer: { status: number; body: { error?: { code: string } } }) => {
    expect(answer.status).toBe(403);
    expect(answer.body.error?.code).toBe('business_suspended');
  };

  it('refuses new payments, checkouts and remainders at once, lets an open checkout finish, tells subscribers, and takes payments again once reinstated', async () => {
    const created = await businessWithKey(api, true);
    const shop: Client = created.client;
    const businesses = api.app.get(BusinessService);
    const hook = await shop.post('/webhooks', { url: rx.url, event_types: ['business.updated'] });
    expect(hook.status).toBe(201);
    const verifier = new Webhook(hook.body.data.secret);

    // before: an underpaid payment whose remainder can be requested, a pending payment, an open checkout
    const short = await shop.createPayment();
    await shop.markSent((await shop.openCheckout(short)).id, 'underpaid');
    await shop.advance(30);
    await shop.advance(16 * 60);
    expect((await shop.payment(short.id)).status).toBe('underpaid');
    const pending = await shop.createPayment();
    const paying = await shop.createPayment();
    const open = await shop.openCheckout(paying);
    expect((await shop.get('/business')).body.data).toMatchObject({ status: 'active', suspended_at: null });

    const suspended = await businesses.suspendBusiness(created.business.id, { reason: 'Chargeback review', actor: operatorActor('ada') });
    expect(suspended).toMatchObject({ status: 'suspended', suspended_at: expect.stringMatching(/Z$/) });

    // the next requests (the key's lookup was cached by the requests above: the suspension dropped it)
    refusedSuspended(await shop.post('/payments', { amount: 1000, currency: 'USD' }));
    refusedSuspended(await shop.postOnce('/checkouts', { payment_code: pending.url.split('/').pop(), asset: 'USDC', network: 'ethereum' }));
    refusedSuspended(await shop.as(null).postOnce('/checkouts', { payment_code: pending.url.split('/').pop(), asset: 'USDC', network: 'ethereum' })); // the hosted page
    refusedSuspended(await shop.postOnce(`/payments/${short.id}/request-remainder`));
    const business = (await shop.get('/business')).body.data;
    expect(business).toEqual({ ...created.business, status: 'suspended', suspended_at: suspended.suspended_at, updated_at: suspended.updated_at });

    // what is under way goes on: the checkout opened before is paid, and the payment succeeds
    await shop.as(null).markSent(open.id, 'exact');
    await shop.advance(30);
    expect((await shop.payment(paying.id)).status).toBe('succeeded');
    expect((await shop.payment(pending.id)).status).toBe('pending'); // readable, untouched
    expect((await shop.get('/payments')).status).toBe(200);

    const first = (await rx.waitFor(1))[0];
    const delivered = verifier.verify(first.body, first.headers as Record<string, string>) as { type: string; subject: { id: string }; data: Record<string, unknown> };
    expect(delivered).toMatchObject({ type: 'business.updated', subject: { id: created.business.id }, data: business });

    const reinstated = await businesses.reinstateBusiness(created.business.id, { actor: operatorActor('ada') });
    expect(reinstated).toMatchObject({ status: 'active', suspended_at: null });
    expect((await shop.get('/business')).body.data).toMatchObject({ status: 'active', suspended_at: null });
    const again = await shop.createPayment();
    expect(again.status).toBe('pending');
    expect((await shop.openCheckout(pending)).status).toBe('open');
    expect((await shop.postOnce(`/payments/${short.id}/request-remainder`)).status).toBe(201);

    const second = (await rx.waitFor(2))[1];
    const update = verifier.verify(second.body, second.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
    expect(update).toMatchObject({ type: 'business.updated', data: { id: created.business.id, status: 'active', suspended_at: null, updated_at: reinstated.updated_at } });
  });

  it('replaces with the same choice — which opens nothing — answers the open quote (or the one a transfer is confirming) as for an active business; anything that would open a checkout stays 403 (0016 addendum, 2026-11-29; api audit L4)', async () => {
    const created = await businessWithKey(api, true);
    const shop: Client = created.client;
    const page = shop.as(null); // the hosted page reloading
    const codeOf = (url: string) => url.split('/').pop()!;
    const payment = await shop.createPayment();
    const open = await shop.openCheckout(payment);
    const paying = await shop.createPayment();
    const confirming = await shop.openCheckout(paying);
    expect((await shop.markSent(confirming.id, 'exact')).status).toBe('confirming');
    const link = (await shop.post('/links', { name: 'Desk', amount: 4250, currency: 'USD' })).body.data;
    const linkOpen = (await page.postOnce('/checkouts', { link_code: link.code, asset: 'USDC', network: 'ethereum' })).body.data;
    expect(linkOpen).toMatchObject({ status: 'open', link_id: link.id });
    await api.app.get(BusinessService).suspendBusiness(created.business.id, { reason: 'Chargeback review', actor: operatorActor('ada') });

    for (const client of [shop, page]) {
      const same = await client.postOnce('/checkouts', { payment_code: codeOf(payment.url), asset: 'USDC', network: 'ethereum', replaces: open.id });
      expect([same.status, same.body.data?.id, same.body.data?.status, same.body.data?.crypto.address]).toEqual([201, open.id, 'open', open.crypto.address]);
      const followed = await client.postOnce('/checkouts', { payment_code: codeOf(paying.url), asset: 'USDC', network: 'ethereum', replaces: confirming.id });
      expect([followed.status, followed.body.data?.id, followed.body.data?.status]).toEqual([201, confirming.id, 'confirming']);
      const linked = await client.postOnce('/checkouts', { link_code: link.code, asset: 'USDC', network: 'ethereum', replaces: linkOpen.id });
      expect([linked.status, linked.body.data?.id]).toEqual([201, linkOpen.id]);
      // what would open a checkout (or a link's payment): 403 business_suspended, as before
      refusedSuspended(await client.postOnce('/checkouts', { payment_code: codeOf(payment.url), asset: 'USDC', network: 'polygon', replaces: open.id }));
      refusedSuspended(await client.postOnce('/checkouts', { payment_code: codeOf(payment.url), asset: 'USDC', network: 'ethereum' }));
      refusedSuspended(await client.postOnce('/checkouts', { payment_code: codeOf(payment.url), rail: 'card', country: 'NL', email: 'ann@example.com', replaces: open.id }));
      refusedSuspended(await client.postOnce('/checkouts', { payment_code: codeOf(paying.url), asset: 'USDC', network: 'polygon', replaces: confirming.id })); // 409 payment_in_flight for an active business
      refusedSuspended(await client.postOnce('/checkouts', { link_code: link.code, asset: 'USDC', network: 'polygon', replaces: linkOpen.id }));
      refusedSuspended(await client.postOnce('/checkouts', { link_code: link.code, asset: 'USDC', network: 'ethereum' }));
    }
    // and the quote answered is paid as any open checkout finishes
    await page.markSent(open.id, 'exact');
    await shop.advance(30);
    expect((await shop.payment(payment.id)).status).toBe('succeeded');
  });
});
