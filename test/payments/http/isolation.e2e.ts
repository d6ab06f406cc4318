import { Client, appPerSuite, businessWithKey, clientWithNewKey, startApp } from '../../support/fixtures';

/**
 * Object-level authorization (spec §5, §7 404 "nothing with that ID for the business"): a secret
 * or restricted key acts as its business on every route, the public checkout routes included.
 * Another business's checkout or payment is 404 and nothing changes; a publishable key or no
 * credentials keep the public behaviour; POST /checkouts names a payment by its code, so another
 * business's code is that route's 404 payment_not_found. Receipts stay public.
 */
describe('another business’s key: 404 on every route that takes an id, nothing changes', () => {
  const suite = appPerSuite(
    () => startApp('embedded', { TRUSTED_PROXIES: 'loopback' }),
    async (api) => {
      const created = await businessWithKey(api, true, 'Owner');
      const stranger = await businessWithKey(api, true, 'Stranger');
      const restricted = await clientWithNewKey(api, { businessId: stranger.business.id, kind: 'restricted', mode: 'test', permissions: 'payments:write' });
      const strangers: [string, Client][] = [['secret key', stranger.client], ['restricted key', restricted]];
      return { owner: created.client, ownerPublishable: created.publishable_key, strangers };
    },
  );

  const code = (payment: { url: string }) => payment.url.split('/').pop()!;
  const checkoutOf = async (id: string) => (await suite.owner.get(`/checkouts/${id}`)).body.data;
  const expectNotFound = (answer: { status: number; body: any }, code = 'not_found') => {
    expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status: 404, code });
  };

  for (const which of ['secret key', 'restricted key']) {
    describe(`with the stranger's ${which}`, () => {
      const stranger = () => suite.strangers.find(([name]) => name === which)![1];

      it('checkout routes (retrieve, cancel, supersede, mark-sent, claim) answer 404 not_found; the checkout is unchanged', async () => {
        const payment = await suite.owner.createPayment();
        const open = await suite.owner.openCheckout(payment);
        const before = await checkoutOf(open.id);
        const paymentBefore = await suite.owner.payment(payment.id);

        expectNotFound(await stranger().get(`/checkouts/${open.id}`));
        expectNotFound(await stranger().post(`/checkouts/${open.id}/cancel`));
        expectNotFound(await stranger().post(`/checkouts/${open.id}/supersede`));
        expectNotFound(await stranger().post(`/checkouts/${open.id}/mark-sent`, { simulate: 'exact' }));
        expect(await checkoutOf(open.id)).toEqual(before);
        expect(await suite.owner.payment(payment.id)).toEqual(paymentBefore);

        // a claim needs an expired or canceled checkout: cancel one, then the stranger claims it
        const second = await suite.owner.openCheckout(payment, { asset: 'USDT' });
        expect((await suite.owner.as(null).post(`/checkouts/${second.id}/cancel`)).status).toBe(200);
        const canceled = await checkoutOf(second.id);
        const paymentCanceled = await suite.owner.payment(payment.id);
        expectNotFound(await stranger().post(`/checkouts/${second.id}/claim`, { tx_hash: '0x' + 'ab'.repeat(32) }));
        expect(await checkoutOf(second.id)).toEqual(canceled);
        expect(await suite.owner.payment(payment.id)).toEqual(paymentCanceled);
      });

      it('POST /checkouts with another business’s payment_code → 404 payment_not_found; no checkout is opened', async () => {
        const payment = await suite.owner.createPayment();
        const before = await suite.owner.payment(payment.id);
        const answer = await stranger().postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum' });
        expectNotFound(answer, 'payment_not_found');
        expect(answer.body.error.field).toBe('payment_code');
        expect(await suite.owner.payment(payment.id)).toEqual(before);
      });

      it('payment routes (retrieve, update, cancel, accept, request-remainder) answer 404 not_found; the payment is unchanged', async () => {
        const pending = await suite.owner.createPayment({ metadata: { order: '7' } });
        const pendingBefore = await suite.owner.payment(pending.id);
        expectNotFound(await stranger().get(`/payments/${pending.id}`));
        expectNotFound(await stranger().patch(`/payments/${pending.id}`, { metadata: { order: '8' } }));
        expectNotFound(await stranger().post(`/payments/${pending.id}/cancel`));
        expect(await suite.owner.payment(pending.id)).toEqual(pendingBefore);

        // underpaid with its quote ended: accept and request-remainder would both act
        const underpaid = await suite.owner.createPayment();
        await suite.owner.markSent((await suite.owner.openCheckout(underpaid)).id, 'underpaid');
        await suite.owner.advance(30 + 16 * 60);
        const underpaidBefore = await suite.owner.payment(underpaid.id);
        expect(underpaidBefore.status).toBe('underpaid');
        expectNotFound(await stranger().post(`/payments/${underpaid.id}/accept`));
        expectNotFound(await stranger().postOnce(`/payments/${underpaid.id}/request-remainder`));
        expect(await suite.owner.payment(underpaid.id)).toEqual(underpaidBefore);
      });
    });
  }

  it('a publishable key or no credentials keep the public checkout routes; receipts stay public', async () => {
    const payment = await suite.owner.createPayment();
    const open = await suite.owner.openCheckout(payment);
    for (const client of [suite.owner.as(null), suite.owner.as(suite.ownerPublishable), suite.strangers[0][1].as(null)]) {
      const read = await client.get(`/checkouts/${open.id}`);
      expect(read.status).toBe(200);
      expect(read.body.data).not.toHaveProperty('fee_rate_bps');
    }
    const opened = await suite.owner.as(null).postOnce('/checkouts', { payment_code: code(payment), asset: 'USDT', network: 'ethereum' });
    expect(opened.status).toBe(201);
    expect((await suite.owner.as(suite.ownerPublishable).post(`/checkouts/${opened.body.data.id}/supersede`)).status).toBe(200);
    const canceled = await suite.owner.as(null).post(`/checkouts/${open.id}/cancel`);
    expect(canceled.body.data).toMatchObject({ status: 'canceled', canceled_by: 'customer' });
    expect((await suite.owner.as(null).get(`/public/receipts/${payment.id}`)).status).toBe(200);
  });

  it('the owner’s own secret and restricted keys act on its checkouts', async () => {
    const payment = await suite.owner.createPayment();
    const open = await suite.owner.openCheckout(payment);
    expect((await suite.owner.get(`/checkouts/${open.id}`)).body.data).toHaveProperty('fee_rate_bps');
    const ownerId = (await suite.owner.get('/test_clock')).body.data.business_id;
    const mine = await clientWithNewKey(suite.api, { businessId: ownerId, kind: 'restricted', mode: 'test', permissions: 'payments:read' });
    expect((await mine.get(`/checkouts/${open.id}`)).status).toBe(200);
    expect((await mine.post(`/checkouts/${open.id}/mark-sent`, { simulate: 'exact' })).body.data.status).toBe('confirming');
  });
});
