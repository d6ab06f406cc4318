import { appPerSuite, businessWithKey, clientWithNewKey, startTestApi } from '../support/fixtures';

/**
 * Checkout settings over HTTP (issue 19 B13, decision 0028): GET/PATCH /checkout-settings on the
 * real app; what they change for customers on POST /checkouts (email_required, rail_unavailable,
 * asset_unavailable) and on the public receipt (the name and support address shown); what a
 * client mistake gets (400 invalid_request naming the field, nothing changed); test keys on a
 * live business refused (403 test_mode_unavailable, §5.4); restricted keys by permission.
 */
describe('checkout settings over HTTP', () => {
  const suite = appPerSuite(() => startTestApi());

  const code = (payment: { url: string }) => payment.url.split('/').pop()!;

  it('starts from the defaults: no e-mail asked, both rails, every coin and network', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const answer = await client.get('/checkout-settings');
    expect(answer.status).toBe(200);
    const settings = answer.body.data;
    expect(settings).toMatchObject({ kind: 'checkout_settings', display_name: null, support_email: null, ask_email: false, rails: ['crypto', 'card'], all_assets: true, updated_at: null });
    expect(settings.assets).toEqual(expect.arrayContaining([{ asset: 'USDC', network: 'ethereum' }, { asset: 'BTC', network: 'bitcoin' }, { asset: 'SOL', network: 'solana' }]));
  });

  it('asks for an e-mail: a checkout without one is 400 email_required, with one (or one known from the payment) it opens', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const changed = await client.patch('/checkout-settings', { ask_email: true });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ ask_email: true, updated_at: expect.stringMatching(/Z$/) });
    const payment = await client.createPayment();
    const refused = await client.as(null).postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'email_required', field: 'email', message: 'This business asks for your e-mail address.' });
    const opened = await client.as(null).postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum', email: 'ann@example.com' });
    expect(opened.status).toBe(201);
    const known = await client.createPayment({ customer_email: 'bob@example.com' });
    expect((await client.as(null).postOnce('/checkouts', { payment_code: code(known), asset: 'USDC', network: 'ethereum' })).status).toBe(201);
  });

  it('narrows the coins and rails customers may choose: another pair is 400 asset_unavailable, a rail left out 400 rail_unavailable', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const changed = await client.patch('/checkout-settings', { assets: [{ asset: 'USDC', network: 'polygon' }] });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ assets: [{ asset: 'USDC', network: 'polygon' }], all_assets: false });
    const payment = await client.createPayment();
    const other = await client.as(null).postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'ethereum' });
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ code: 'asset_unavailable', field: 'asset' });
    expect((await client.as(null).postOnce('/checkouts', { payment_code: code(payment), asset: 'USDC', network: 'polygon' })).status).toBe(201);

    expect((await client.patch('/checkout-settings', { rails: ['card'] })).status).toBe(200);
    const crypto = await client.as(null).postOnce('/checkouts', { payment_code: code(await client.createPayment()), asset: 'USDC', network: 'polygon' });
    expect(crypto.status).toBe(400);
    expect(crypto.body.error).toMatchObject({ code: 'rail_unavailable', field: 'rail' });

    // back to every pair
    const reset = await client.patch('/checkout-settings', { assets: null, rails: ['crypto'] });
    expect(reset.body.data).toMatchObject({ all_assets: true, rails: ['crypto'] });
    expect((await client.as(null).postOnce('/checkouts', { payment_code: code(await client.createPayment()), asset: 'USDC', network: 'ethereum' })).status).toBe(201);
  });

  it('shows the chosen name and support address on the public receipt', async () => {
    const { client, business } = await businessWithKey(suite.api, true);
    const payment = await client.createPayment();
    const before = await client.as(null).get(`/public/receipts/${payment.id}`);
    expect(before.body.data.business).toEqual({ name: business.name, support_email: 'help@shop.example' });
    expect((await client.patch('/checkout-settings', { display_name: '  Acme Outlet ', support_email: 'care@acme.example' })).status).toBe(200);
    const after = await client.as(null).get(`/public/receipts/${payment.id}`);
    expect(after.body.data.business).toEqual({ name: 'Acme Outlet', support_email: 'care@acme.example' });
    // blank is null again: the business's own
    expect((await client.patch('/checkout-settings', { display_name: '', support_email: null })).body.data).toMatchObject({ display_name: null, support_email: null });
    expect((await client.as(null).get(`/public/receipts/${payment.id}`)).body.data.business).toEqual({ name: business.name, support_email: 'help@shop.example' });
  });

  it('refuses a client mistake with 400 invalid_request naming the field, and changes nothing', async () => {
    const { client } = await businessWithKey(suite.api, true);
    const cases: [unknown, string][] = [
      [{ ask_email: 'yes' }, 'ask_email'],
      [{ ask_email: null }, 'ask_email'],
      [{ rails: [] }, 'rails'],
      [{ rails: ['cash'] }, 'rails'],
      [{ rails: 'card' }, 'rails'],
      [{ rails: null }, 'rails'],
      [{ assets: [{ asset: 'DOGE', network: 'ethereum' }] }, 'assets'],
      [{ assets: [{ asset: 'BTC', network: 'ethereum' }] }, 'assets[0]'],
      [{ assets: [] }, 'assets'],
      [{ support_email: 'not-an-address' }, 'support_email'],
      [{ display_name: 'x'.repeat(101) }, 'display_name'],
      [{ color: 'red' }, 'color'],
    ];
    const empty = await client.patch('/checkout-settings', {});
    expect({ status: empty.status, code: empty.body.error?.code }).toEqual({ status: 400, code: 'invalid_request' });
    for (const [body, field] of cases) {
      const answer = await client.patch('/checkout-settings', body);
      expect({ body, status: answer.status, code: answer.body.error?.code }).toEqual({ body, status: 400, code: 'invalid_request' });
      expect(String(answer.body.error.field)).toContain(field.replace(/\[0\]$/, ''));
    }
    expect((await client.get('/checkout-settings')).body.data).toMatchObject({ ask_email: false, rails: ['crypto', 'card'], all_assets: true, updated_at: null });
  });

  it('refuses test keys on a live business (403 test_mode_unavailable) and restricted keys without business write (403 permission_denied)', async () => {
    const live = await businessWithKey(suite.api, false);
    const test = await clientWithNewKey(suite.api, { businessId: live.business.id, kind: 'secret', mode: 'test' });
    const refused = await test.patch('/checkout-settings', { ask_email: true });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('test_mode_unavailable');
    expect((await test.get('/checkout-settings')).status).toBe(200); // reading is fine
    const reader = await clientWithNewKey(suite.api, { businessId: live.business.id, kind: 'restricted', mode: 'live', permissions: 'business:read' });
    expect((await reader.get('/checkout-settings')).status).toBe(200);
    expect((await reader.patch('/checkout-settings', { ask_email: true })).body.error.code).toBe('permission_denied');
    expect((await live.client.get('/checkout-settings')).body.data.ask_email).toBe(false);
    expect((await live.client.patch('/checkout-settings', { ask_email: true })).body.data.ask_email).toBe(true);
  });
});
