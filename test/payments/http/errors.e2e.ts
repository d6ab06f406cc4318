import { appPerSuite, businessWithKey, clientWithNewKey, startApp } from '../../support/fixtures';

/**
 * The error codes §4 and §7 list for the payment and checkout routes, each provoked over HTTP;
 * test keys on a live business (§5.4); state-dependent refusals on checkouts.
 */
describe('payment and checkout errors over HTTP', () => {
  const suite = appPerSuite(
    () => startApp('embedded', { TRUSTED_PROXIES: 'loopback', EVM_RPC_URL_ETHEREUM: 'http://127.0.0.1:9' }), // live checkouts need a watched network (nothing listens there)
    async (api) => {
      const shop = (await businessWithKey(api, true)).client;
      const live = await businessWithKey(api, false);
      return { shop, liveShop: live.client, liveTestKey: await clientWithNewKey(api, { businessId: live.business.id, kind: 'secret', mode: 'test' }) };
    },
  );

  const code = (payment: { url: string }) => payment.url.split('/').pop()!;

  it('POST /checkouts: a field sent as null is refused naming it (400 invalid_request), never taken as a value; nothing is opened', async () => {
    const payment = await suite.shop.createPayment();
    const valid = { payment_code: code(payment), asset: 'USDC', network: 'ethereum' };
    for (const field of ['payment_code', 'link_code', 'rail', 'asset', 'network', 'email', 'country', 'replaces', 'simulate']) {
      const answer = await suite.shop.postOnce('/checkouts', { ...valid, [field]: null });
      expect({ field, status: answer.status, code: answer.body.error?.code, param: answer.body.error?.field }).toEqual({ field, status: 400, code: 'invalid_request', param: field });
    }
    expect((await suite.shop.payment(payment.id)).events.map((e: { type: string }) => e.type)).toEqual(['created']);
  });

  it('a test key on a live business cannot create, cancel, accept, request a remainder or open a checkout (403 test_mode_unavailable); it can read', async () => {
    const payment = await suite.liveShop.createPayment();
    for (const answer of [
      await suite.liveTestKey.post('/payments', { amount: 1000, currency: 'USD' }),
      await suite.liveTestKey.post(`/payments/${payment.id}/cancel`),
      await suite.liveTestKey.post(`/payments/${payment.id}/accept`),
      await suite.liveTestKey.postOnce(`/payments/${payment.id}/request-remainder`),
      await suite.liveTestKey.postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum' }),
      await suite.liveTestKey.post('/wallet', { type: 'created' }),
    ]) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('test_mode_unavailable');
    }
    expect((await suite.liveTestKey.get(`/payments/${payment.id}`)).status).toBe(200);
    // the live business's own live key opens checkouts; simulate is refused there
    const sim = await suite.liveShop.postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum', simulate: 'exact' });
    expect(sim.body.error).toMatchObject({ code: 'invalid_request', field: 'simulate' });
    // a live business without a wallet takes no crypto (409 not_accepting); with one it opens checkouts
    const noWallet = await suite.liveShop.postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum' });
    expect(noWallet.body.error).toMatchObject({ code: 'not_accepting' });
    expect((await suite.liveShop.post('/wallet', { type: 'created' })).status).toBe(201);
    const opened = await suite.liveShop.openCheckout(payment);
    const markSent = await suite.liveShop.as(null).post(`/checkouts/${opened.id}/mark-sent`, {});
    expect(markSent.status).toBe(400); // mark-sent is for simulated businesses only
  });

  it('request-remainder: 400 idempotency_key_required, 404, 409 payment_not_underpaid, 409 remainder_unavailable carrying the quote end', async () => {
    const payment = await suite.shop.createPayment();
    expect((await suite.shop.post(`/payments/${payment.id}/request-remainder`)).body.error.code).toBe('idempotency_key_required');
    expect((await suite.shop.postOnce('/payments/pmt_doesnotexist000000000000/request-remainder')).status).toBe(404);
    expect((await suite.shop.postOnce(`/payments/${payment.id}/request-remainder`)).body.error.code).toBe('payment_not_underpaid');
    const checkout = await suite.shop.openCheckout(payment);
    await suite.shop.markSent(checkout.id, 'underpaid');
    await suite.shop.advance(15);
    const early = await suite.shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('remainder_unavailable');
    expect(Date.parse(early.body.error.quote_ends_at)).toBeGreaterThan(Date.now());
  });

  it('checkout cancel / supersede / claim / mark-sent refusals', async () => {
    const payment = await suite.shop.createPayment();
    const checkout = await suite.shop.openCheckout(payment);
    const anon = suite.shop.as(null);
    // claim: only expired or canceled checkouts; the hash must fit the network
    expect((await anon.post(`/checkouts/${checkout.id}/claim`, { tx_hash: '0x' + '12'.repeat(32) })).body.error.code).toBe('checkout_not_claimable');
    expect((await anon.post(`/checkouts/${checkout.id}/claim`, { tx_hash: '0x' + '12'.repeat(32), extra: 1 })).body.error).toMatchObject({ code: 'invalid_request', field: 'extra' });
    await suite.shop.markSent(checkout.id, 'exact');
    expect((await anon.post(`/checkouts/${checkout.id}/cancel`)).body.error.code).toBe('checkout_not_cancelable');
    expect((await anon.post(`/checkouts/${checkout.id}/supersede`)).body.error.code).toBe('checkout_not_supersedable');
    const again = await anon.post(`/checkouts/${checkout.id}/mark-sent`, { simulate: 'overpaid' });
    expect(again.status).toBe(200); // confirming: unchanged, no second transfer
    expect(again.body.data.crypto.received_amount).toBe('100');
    expect((await anon.post(`/checkouts/${checkout.id}/mark-sent`, { simulate: 'twice' })).body.error).toMatchObject({ code: 'invalid_request', field: 'simulate' });
    await suite.shop.advance(30);
    // the payment succeeded: claims on its other checkouts are payment_paid; new checkouts too
    const late = await suite.shop.postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum' });
    expect(late.body.error.code).toBe('payment_paid');

    const p2 = await suite.shop.createPayment();
    const c2 = await suite.shop.openCheckout(p2);
    // the actions that take no body refuse one with members (§7 "unknown"), and change nothing
    expect((await anon.post(`/checkouts/${c2.id}/cancel`, { bogus_field: 1 })).body.error).toMatchObject({ code: 'invalid_request', field: 'bogus_field' });
    expect((await anon.post(`/checkouts/${c2.id}/supersede`, { a: 1 })).body.error).toMatchObject({ code: 'invalid_request', field: 'a' });
    expect((await suite.shop.get(`/checkouts/${c2.id}`)).body.data).toMatchObject({ status: 'open' });
    await anon.post(`/checkouts/${c2.id}/cancel`);
    expect((await anon.post(`/checkouts/${c2.id}/claim`, { tx_hash: 'not-a-hash' })).body.error.code).toBe('invalid_tx_hash');
    expect((await anon.post(`/checkouts/${c2.id}/claim`, { tx_hash: '0x' + '34'.repeat(32), email: 'bad' })).body.error.code).toBe('invalid_email');
    const claimed = await anon.post(`/checkouts/${c2.id}/claim`, { tx_hash: '0x' + '34'.repeat(32), email: 'payer@example.com' });
    expect(claimed.body.data.status).toBe('needs_review');

    const p3 = await suite.shop.createPayment();
    const c3 = await suite.shop.openCheckout(p3);
    await suite.shop.post(`/checkouts/${c3.id}/supersede`);
    await suite.shop.advance(16 * 60);
    const expired = await anon.post(`/checkouts/${c3.id}/mark-sent`, { simulate: 'exact' });
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe('checkout_expired');
    // superseded, then expired: a supersede now is refused like on any ended checkout (§4 supersede)
    expect((await anon.post(`/checkouts/${c3.id}/supersede`)).body.error?.code).toBe('checkout_not_supersedable');
    const lateSent = await anon.post(`/checkouts/${c3.id}/mark-sent`, { simulate: 'late' });
    expect(lateSent.body.data.status).toBe('needs_review');

    const p4 = await suite.shop.createPayment();
    const c4 = await suite.shop.openCheckout(p4);
    await suite.shop.post(`/payments/${p4.id}/cancel`);
    expect((await anon.post(`/checkouts/${c4.id}/mark-sent`, {})).body.error.code).toBe('checkout_failed');
  });

  it("a public caller gets the checkout without the secret fields; the owner's secret key with them; another business's key gets 404 (isolation.e2e.ts)", async () => {
    const payment = await suite.shop.createPayment();
    const stranger = (await businessWithKey(suite.api, true, 'Stranger')).client;
    expect((await stranger.postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum' })).body.error.code).toBe('payment_not_found');
    const opened = await suite.shop.as(null).postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum' });
    expect(opened.status).toBe(201);
    expect(opened.body.data).not.toHaveProperty('fee_rate_bps');
    expect((await stranger.get(`/checkouts/${opened.body.data.id}`)).status).toBe(404);
    const mine = await suite.shop.get(`/checkouts/${opened.body.data.id}`);
    expect(mine.body.data).toHaveProperty('fee_rate_bps', 100);
    expect(mine.body.data).toHaveProperty('reporting');
  });

  it('unknown ids answer 404 on every checkout route and the receipt', async () => {
    const anon = suite.shop.as(null);
    for (const path of ['/checkouts/chk_nope/cancel', '/checkouts/chk_nope/supersede', '/checkouts/chk_nope/mark-sent']) {
      expect((await anon.post(path)).status).toBe(404);
    }
    expect((await anon.post('/checkouts/chk_nope/claim', { tx_hash: '0x' + '12'.repeat(32) })).status).toBe(404);
    expect((await anon.get('/checkouts/chk_nope')).status).toBe(404);
    expect((await anon.get('/public/receipts/pmt_nope')).status).toBe(404);
    expect((await anon.get('/public/receipts/not-an-id')).status).toBe(404);
  });

  it('POST /checkouts is limited to 30 per 10 minutes per IP address (429 rate_limited with Retry-After)', async () => {
    const payment = await suite.shop.createPayment();
    const customer = suite.shop.as(null).from('203.0.113.7');
    const answers = [];
    for (let i = 0; i < 31; i++) answers.push(await customer.postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum' }));
    expect(answers.slice(0, 30).every((a) => a.status === 201)).toBe(true);
    expect(answers[30].status).toBe(429);
    expect(answers[30].body.error.code).toBe('rate_limited');
    expect(Number(answers[30].headers.get('retry-after'))).toBeGreaterThan(0);
    // another customer is not limited by the first one's attempts
    expect((await suite.shop.as(null).from('203.0.113.8').postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum' })).status).toBe(201);
  });

  it('restricted keys need payments access', async () => {
    const business = await businessWithKey(suite.api, true, 'Restricted');
    const client = await clientWithNewKey(suite.api, { businessId: business.business.id, kind: 'restricted', mode: 'test', permissions: 'payments:read' });
    const payment = await business.client.createPayment();
    expect((await client.get(`/payments/${payment.id}`)).status).toBe(200);
    const refused = await client.post('/payments', { amount: 1000, currency: 'USD' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('permission_denied');
  });
});
