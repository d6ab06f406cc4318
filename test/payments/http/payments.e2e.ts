import { eventually } from '../../support/eventually';
import { appPerSuite, businessWithKey, shopAndLive, startApp } from '../../support/fixtures';

/**
 * Payments end to end over real HTTP on the embedded store (issue 4): a simulated business takes
 * a payment from creation to succeeded, to underpaid and through a remainder, to needs_review by
 * claim; the test clock fires the timers; every answer is read from the read models at once.
 */
describe('payments and checkouts over HTTP (simulated business)', () => {
  const suite = appPerSuite(
    () => startApp('embedded', { TRUSTED_PROXIES: 'loopback' }),
    async (api) => ({ ...(await shopAndLive(api)), other: (await businessWithKey(api, true, 'Other sandbox')).client }),
  );

  const types = (payment: { events: { type: string }[] }) => payment.events.map((e) => e.type);

  it('creates a payment and reads it back at once', async () => {
    const created = await suite.shop.createPayment({ reference: 'order-1', metadata: { order: '1' }, customer_email: 'ann@example.com' });
    expect(created).toMatchObject({ kind: 'payment', status: 'pending', amount: 10_000, currency: 'USD', reference: 'order-1', metadata: { order: '1' }, description: 'Order 1' });
    expect(created.id).toMatch(/^pmt_/);
    expect(created.customer_id).toMatch(/^cst_/);
    expect(created.url).toMatch(new RegExp(`^${suite.api.config.checkoutBaseUrl}/[A-Za-z0-9]+$`));
    expect(types(created)).toEqual(['created']);
    const read = await suite.shop.payment(created.id);
    expect(read).toEqual(created);
  });

  it('exact transfer: open checkout → mark-sent → confirmations on the test clock → succeeded, with timeline and receipt', async () => {
    const payment = await suite.shop.createPayment();
    const checkout = await suite.shop.openCheckout(payment);
    expect(checkout).toMatchObject({ kind: 'checkout', status: 'open', rail: 'crypto', payment_id: payment.id, remainder: false, amount: 10_000, currency: 'USD' });
    expect(checkout.confirmations).toEqual({ current: 0, required: 4 });
    expect(checkout.crypto).toMatchObject({ asset: 'USDC', network: 'ethereum', amount: '100', rate: { amount: 100, currency: 'USD' } });
    expect(checkout.crypto.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(checkout).toHaveProperty('fee_rate_bps'); // secret key: the extra fields

    const sent = await suite.shop.markSent(checkout.id, 'exact');
    expect(sent.status).toBe('confirming');
    expect(sent.crypto.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sent.crypto.received_amount).toBe('100');
    expect(sent.sent_at).not.toBeNull();

    await suite.shop.advance(60);
    const done = await suite.shop.payment(payment.id);
    expect(done.status).toBe('succeeded');
    expect(done.amount_received).toBe(10_000);
    const t = types(done);
    expect(t.slice(0, 3)).toEqual(['created', 'method_selected', 'detected']);
    const confirmations = done.events.filter((e: { type: string }) => e.type === 'confirmation').map((e: { data: { current: number } }) => e.data.current);
    expect(confirmations).toEqual([1, 2, 3, 4]);
    expect(t[t.length - 1]).toBe('succeeded');
    expect(done.reporting).toMatchObject({ currency: 'USD', amount: 10_000, fee: 100, transaction_fee: 0, customer_fee: 0 }); // 1% of $100.00
    expect(done.reporting.net).toBe(done.reporting.amount - done.reporting.fee - done.reporting.transaction_fee);
    // keys in the spec's order before and after success (stored state is jsonb, which reorders keys), in the list too
    const reportingKeys = ['currency', 'amount', 'fee', 'transaction_fee', 'customer_fee', 'net'];
    const listed = (await suite.shop.get(`/payments?limit=100`)).body.data.find((p: { id: string }) => p.id === payment.id);
    for (const shown of [payment, done, listed]) {
      expect(Object.keys(shown.reporting)).toEqual(reportingKeys);
      for (const entry of shown.events) expect(Object.keys(entry)).toEqual(['type', 'created_at', 'data']);
    }
    const completed = (await suite.shop.get(`/checkouts/${checkout.id}`)).body.data;
    for (const shown of [checkout, completed]) {
      expect(Object.keys(shown.breakdown)).toEqual(['currency', 'price', 'processing_fee', 'network_fee', 'total']);
      expect(Object.keys(shown.reporting)).toEqual(reportingKeys);
    }

    const receipt = await suite.shop.as(null).get(`/public/receipts/${payment.id}`);
    expect(receipt.status).toBe(200);
    expect(receipt.body.data).toMatchObject({ kind: 'receipt', id: payment.id, status: 'succeeded', amount: 10_000, currency: 'USD' });
    expect(receipt.body.data.transfers).toHaveLength(1);
    expect(receipt.body.data.paid_at).not.toBeNull();
    expect(JSON.stringify(receipt.body.data)).not.toMatch(/reporting|fee_rate_bps|customer_id|customer_email|"email"|"fee"/);
  });

  it('the transfer arrives by itself 20 s after opening (only the quote on screen)', async () => {
    const payment = await suite.shop.createPayment();
    const first = await suite.shop.openCheckout(payment);
    const second = await suite.shop.openCheckout(payment, { asset: 'USDT', network: 'ethereum' });
    // the business clock also runs with wall time: 10 s ahead leaves the test 10 s of its own
    await suite.shop.advance(10);
    expect((await suite.shop.get(`/checkouts/${second.id}`)).body.data.status).toBe('open');
    await suite.shop.advance(11);
    const onScreen = (await suite.shop.get(`/checkouts/${second.id}`)).body.data;
    expect(onScreen.status).toBe('confirming');
    const setAside = (await suite.shop.get(`/checkouts/${first.id}`)).body.data;
    expect(setAside.status).toBe('open'); // superseded: watched, but no simulated transfer
    await suite.shop.advance(30);
    expect((await suite.shop.payment(payment.id)).status).toBe('succeeded');
  });

  it('underpaid → remainder after the quote ends → remainder paid → succeeded', async () => {
    const payment = await suite.shop.createPayment();
    const checkout = await suite.shop.openCheckout(payment);
    await suite.shop.markSent(checkout.id, 'underpaid');
    await suite.shop.advance(30);
    const underpaid = await suite.shop.payment(payment.id);
    expect(underpaid.status).toBe('underpaid');
    expect(types(underpaid)).toContain('underpaid');

    const early = await suite.shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('remainder_unavailable');

    await suite.shop.advance(16 * 60);
    const requested = await suite.shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect(requested.status).toBe(201);
    expect(requested.body.data.kind).toBe('remainder_request');
    expect(requested.body.data.payment.status).toBe('underpaid');
    expect(requested.body.data.checkout).toMatchObject({ remainder: true, status: 'open' });
    expect(requested.body.data.checkout.crypto.amount).toBe('10');
    expect(requested.body.data.url).toBe(`${payment.url}?s=${requested.body.data.checkout.id}`);
    expect(types(requested.body.data.payment)).toContain('remainder_requested');

    const again = await suite.shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect(again.body.data.checkout.id).toBe(requested.body.data.checkout.id); // the same open checkout

    await suite.shop.markSent(requested.body.data.checkout.id, 'exact');
    await suite.shop.advance(60);
    const done = await suite.shop.payment(payment.id);
    expect(done.status).toBe('succeeded');
    expect(types(done)).toContain('remainder_paid');
    expect(done.amount_received).toBe(10_000);
  });

  it('a remainder paid short: payment.underpaid again with the new amount; a claim, then the remainder paid in full: succeeded (audit, 2026-11-28)', async () => {
    const shop = (await businessWithKey(suite.api, true, 'Short remainders')).client; // its own test clock: the advances here move no other test's
    const { payment, checkout } = await shop.underpaidQuoteEnded(); // 90 of 100 USDC
    const remainder = (await shop.postOnce(`/payments/${payment.id}/request-remainder`)).body.data.checkout;
    await shop.markSent(remainder.id, 'underpaid'); // 9 of the 10 left
    await shop.advance(30);
    const short = await shop.payment(payment.id);
    expect(short).toMatchObject({ status: 'underpaid', amount_received: 9_900 });
    const underpaidEvents = (await shop.get(`/events?subject_id=${payment.id}&type=payment.underpaid`)).body.data;
    expect(underpaidEvents.map((e: { data: { amount_received: number } }) => e.data.amount_received)).toEqual([9_900, 9_000]); // newest first
    const latest = (await shop.get(`/events?subject_id=${payment.id}&limit=1`)).body.data[0];
    expect(JSON.stringify(latest.data)).toBe(JSON.stringify(short)); // the last event's data is the payment as GET answers it, to the key order (audit, 2026-11-28)
    // the remainder checkout holds its quote for the rest: no new remainder while it is live (§4; audit, 2026-11-29)
    const held = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect([held.status, held.body.error?.code]).toEqual([409, 'remainder_unavailable']);
    expect(Date.parse(held.body.error.quote_ends_at)).toBeGreaterThan(Date.parse((await shop.get(`/checkouts/${remainder.id}`)).body.data.created_at));

    // the first quote, expired, is claimed (needs_review); then what is left arrives on the remainder checkout, still awaiting it
    expect((await shop.as(null).post(`/checkouts/${checkout.id}/claim`, { tx_hash: '0x' + '5a'.repeat(32) })).status).toBe(200);
    expect((await shop.payment(payment.id)).status).toBe('needs_review');
    const rest = (await shop.postOnce(`/payments/${payment.id}/request-remainder`)).body;
    expect(rest.error?.code ?? null).toBe('payment_not_underpaid'); // under review: the business decides; a remainder checkout already open still takes money
    await shop.markSent(remainder.id, 'exact'); // the awaiting remainder checkout receives what is still due
    await shop.advance(60);
    const done = await shop.payment(payment.id);
    expect(done).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    expect(types(done).slice(-2)).toEqual(['remainder_paid', 'succeeded']);
  });

  it('expired checkout → claim → needs_review with a claimed entry; accept → succeeded counting the quoted amount', async () => {
    const payment = await suite.shop.createPayment();
    const checkout = await suite.shop.openCheckout(payment);
    await suite.shop.post(`/checkouts/${checkout.id}/supersede`); // no simulated arrival
    await suite.shop.advance(16 * 60);
    expect((await suite.shop.get(`/checkouts/${checkout.id}`)).body.data.status).toBe('expired');
    const hash = '0x' + 'ab'.repeat(32);
    const claimed = await suite.shop.as(null).post(`/checkouts/${checkout.id}/claim`, { tx_hash: hash });
    expect(claimed.status).toBe(200);
    expect(claimed.body.data).toMatchObject({ status: 'needs_review', review_reason: 'claimed' });
    const review = await suite.shop.payment(payment.id);
    expect(review.status).toBe('needs_review');
    expect(review.events.find((e: { type: string }) => e.type === 'claimed').data.tx_hash).toBe(hash);
    const again = await suite.shop.as(null).post(`/checkouts/${checkout.id}/claim`, { tx_hash: '0x' + 'cd'.repeat(32) });
    expect(again.body.error.code).toBe('already_claimed');
    const accepted = await suite.shop.post(`/payments/${payment.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.status).toBe('succeeded');
    expect(accepted.body.data.amount_received).toBe(10_000);
    // the receipt names the claimed transfer once accepted: the transaction, and its one transfer at the quoted amount
    const receipt = (await suite.shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
    expect(receipt).toMatchObject({ status: 'succeeded', transaction: { hash }, received_amount: checkout.crypto.amount });
    expect(receipt.transfers).toEqual([expect.objectContaining({ hash, network: checkout.crypto.network, asset: checkout.crypto.asset, amount: checkout.crypto.amount })]);
  });

  it('wrong_network and late go to needs_review', async () => {
    for (const simulate of ['wrong_network', 'late']) {
      const payment = await suite.shop.createPayment();
      const checkout = await suite.shop.openCheckout(payment);
      const sent = await suite.shop.markSent(checkout.id, simulate);
      expect(sent.status).toBe('needs_review');
      expect((await suite.shop.payment(payment.id)).status).toBe('needs_review');
    }
  });

  it('a checkout in review leaves it when the payment is accepted (late, wrong_network: completed) or paid on its remainder (a claim: failed, payment_succeeded); the payment and its events unchanged by it (0025 addendum, 2026-11-29)', async () => {
    const shop = (await businessWithKey(suite.api, true, 'Reviews resolved')).client; // its own test clock and events
    const checkoutOf = (id: string) => shop.get(`/checkouts/${id}`).then((r) => r.body.data);
    const eventTypes = async (paymentId: string) => ((await shop.get(`/events?subject_id=${paymentId}&limit=100`)).body.data as { type: string }[]).map((e) => e.type);
    for (const simulate of ['late', 'wrong_network']) {
      const payment = await shop.createPayment();
      const checkout = await shop.openCheckout(payment);
      expect(await shop.markSent(checkout.id, simulate)).toMatchObject({ status: 'needs_review', review_reason: simulate });
      const accepted = await shop.post(`/payments/${payment.id}/accept`);
      expect(accepted.body.data).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
      const resolved = await eventually(() => checkoutOf(checkout.id), (c) => c.status !== 'needs_review', { what: `${simulate} checkout out of review` });
      expect(resolved).toMatchObject({ status: 'completed', review_reason: simulate, failure_code: null, crypto: { remaining_amount: null, remaining_payment_uri: null } });
      const after = await shop.payment(payment.id);
      expect(after).toEqual({ ...accepted.body.data, updated_at: after.updated_at }); // nothing on the payment moved with it
      expect(after.updated_at).toBe(accepted.body.data.updated_at);
      const sent = await eventTypes(payment.id);
      expect(sent.filter((t) => t === 'payment.succeeded')).toHaveLength(1);
      expect(sent[0]).toBe('payment.succeeded'); // newest first: nothing after the success
    }

    // a claim on the first (expired) quote, then the remainder paid in full: the payment succeeds on its own
    const payment = await shop.createPayment();
    const checkout = await shop.openCheckout(payment);
    await shop.markSent(checkout.id, 'underpaid');
    await shop.advance(30);
    await shop.advance(16 * 60);
    const remainder = (await shop.postOnce(`/payments/${payment.id}/request-remainder`)).body.data.checkout;
    expect((await shop.as(null).post(`/checkouts/${checkout.id}/claim`, { tx_hash: '0x' + '6b'.repeat(32) })).body.data).toMatchObject({ status: 'needs_review', review_reason: 'claimed' });
    await shop.markSent(remainder.id, 'exact');
    await shop.advance(60);
    expect(await shop.payment(payment.id)).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    const claimed = await eventually(() => checkoutOf(checkout.id), (c) => c.status !== 'needs_review', { what: 'claimed checkout out of review' });
    expect(claimed).toMatchObject({ status: 'failed', failure_code: 'payment_succeeded', review_reason: 'claimed', crypto: { tx_hash: expect.any(String) } });
    expect(await checkoutOf(remainder.id)).toMatchObject({ status: 'completed', review_reason: null });
    expect((await eventTypes(payment.id)).filter((t) => t === 'payment.succeeded')).toHaveLength(1);
  });

  it('late ends the quote first: expires_at not ahead of the business clock, checkout needs_review (not expired), claim refused, receipt and payment needs_review', async () => {
    const payment = await suite.shop.createPayment();
    const checkout = await suite.shop.openCheckout(payment);
    const clockBefore = Date.parse((await suite.shop.get('/test_clock')).body.data.now);
    expect(Date.parse(checkout.expires_at)).toBeGreaterThan(clockBefore); // a live quote
    const sent = await suite.shop.markSent(checkout.id, 'late');
    const now = Date.parse((await suite.shop.get('/test_clock')).body.data.now);
    expect(sent).toMatchObject({ status: 'needs_review', review_reason: 'late' });
    expect(Date.parse(sent.expires_at)).toBeLessThanOrEqual(now);
    const read = (await suite.shop.get(`/checkouts/${checkout.id}`)).body.data;
    expect(read).toMatchObject({ status: 'needs_review', review_reason: 'late', expires_at: sent.expires_at });
    const claim = await suite.shop.as(null).post(`/checkouts/${checkout.id}/claim`, { tx_hash: '0x' + 'ef'.repeat(32) });
    expect(claim.status).toBe(409);
    expect(claim.body.error.code).toBe('checkout_not_claimable');
    const receipt = await suite.shop.as(null).get(`/public/receipts/${payment.id}`);
    expect(receipt.body.data.status).toBe('needs_review');
    const review = await suite.shop.payment(payment.id);
    expect(review.status).toBe('needs_review');
    expect(types(review)).toContain('detected');
    expect(types(review)).not.toContain('expired');
    expect(types(review)).not.toContain('failed');
    // the old quote timer changes nothing afterwards
    await suite.shop.advance(16 * 60);
    expect((await suite.shop.get(`/checkouts/${checkout.id}`)).body.data).toMatchObject({ status: 'needs_review', expires_at: sent.expires_at });
  });

  it('a late transfer the business accepted: the timeline tells detected, needs_review (late, with its transfer), accepted (what was counted, by which key), succeeded, in that order (ops audit F4, decision 0012 addendum 2026-11-30)', async () => {
    const payment = await suite.shop.createPayment();
    const checkout = await suite.shop.openCheckout(payment);
    const sent = await suite.shop.markSent(checkout.id, 'late');
    expect(sent).toMatchObject({ status: 'needs_review', review_reason: 'late' });
    await suite.shop.advance(60); // the transfer's confirmations: one still confirming cannot be accepted
    const review = await suite.shop.payment(payment.id);
    expect(review.events.find((e: { type: string }) => e.type === 'needs_review')?.data).toEqual({ reason: 'late', checkout_id: checkout.id, tx_hash: sent.crypto.tx_hash, attempt_id: null });
    expect(types(review)).not.toContain('accepted');
    const accepted = await suite.shop.post(`/payments/${payment.id}/accept`);
    expect(accepted.body.data).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    const done = await suite.shop.payment(payment.id);
    expect(done).toEqual(accepted.body.data);
    expect(types(done).filter((t) => ['detected', 'needs_review', 'accepted', 'succeeded'].includes(t))).toEqual(['detected', 'needs_review', 'accepted', 'succeeded']);
    expect(types(done).indexOf('needs_review')).toBe(types(done).indexOf('detected') + 1);
    const entry = done.events.find((e: { type: string }) => e.type === 'accepted');
    expect(entry.data).toMatchObject({ counted_amount: '100', actor: { kind: 'api_key', id: expect.stringMatching(/^key_/) } });
    expect(Object.keys(entry.data.actor).sort()).toEqual(['id', 'kind', 'name']);
    // the actor is the one GET /events names for the acceptance
    const succeeded = (await suite.shop.get(`/events?subject_id=${payment.id}&type=payment.succeeded`)).body.data[0];
    expect(entry.data.actor).toEqual(succeeded.actor);
    expect(entry.created_at).toBe(done.events.find((e: { type: string }) => e.type === 'succeeded').created_at);
  });

  it('cancel: a pending payment cancels, its open checkout fails; a paid one is not cancelable', async () => {
    const payment = await suite.shop.createPayment();
    const checkout = await suite.shop.openCheckout(payment);
    const canceled = await suite.shop.post(`/payments/${payment.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data.status).toBe('canceled');
    expect(canceled.body.data.canceled_at).not.toBeNull();
    expect((await suite.shop.get(`/checkouts/${checkout.id}`)).body.data.status).toBe('failed');
    const reopen = await suite.shop.postOnce('/checkouts', { payment_code: payment.url.split('/').pop(), asset: 'USDC', network: 'polygon' });
    expect(reopen.body.error.code).toBe('payment_canceled');

    const inFlight = await suite.shop.createPayment();
    const c2 = await suite.shop.openCheckout(inFlight);
    await suite.shop.markSent(c2.id);
    expect((await suite.shop.post(`/payments/${inFlight.id}/cancel`)).body.error.code).toBe('payment_in_flight');
    await suite.shop.advance(60);
    expect((await suite.shop.post(`/payments/${inFlight.id}/cancel`)).body.error.code).toBe('payment_not_cancelable');
    expect((await suite.shop.post(`/payments/${inFlight.id}/accept`)).body.error.code).toBe('payment_not_acceptable');
  });

  it('checkout cancel by the customer keeps an API payment pending; cancel again returns it unchanged', async () => {
    const payment = await suite.shop.createPayment();
    const checkout = await suite.shop.openCheckout(payment);
    const canceled = await suite.shop.as(null).post(`/checkouts/${checkout.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ status: 'canceled', canceled_by: 'customer' });
    expect(canceled.body.data).not.toHaveProperty('fee_rate_bps'); // no key: no secret fields
    const again = await suite.shop.as(null).post(`/checkouts/${checkout.id}/cancel`);
    expect(again.body.data.status).toBe('canceled');
    expect((await suite.shop.payment(payment.id)).status).toBe('pending');
    expect((await suite.shop.as(null).post(`/checkouts/${checkout.id}/mark-sent`, {})).body.error.code).toBe('checkout_canceled');
  });

  it('PATCH merges metadata by key; empty or null removes; null clears', async () => {
    const payment = await suite.shop.createPayment({ metadata: { a: '1', b: '2' } });
    const merged = await suite.shop.patch(`/payments/${payment.id}`, { metadata: { b: '', c: '3', a: null } });
    expect(merged.status).toBe(200);
    expect(merged.body.data.metadata).toEqual({ c: '3' });
    const cleared = await suite.shop.patch(`/payments/${payment.id}`, { metadata: null });
    expect(cleared.body.data.metadata).toEqual({});
    const reserved = await suite.shop.patch(`/payments/${payment.id}`, { metadata: { id: 'x' } });
    expect(reserved.status).toBe(400);
    expect(reserved.body.error).toMatchObject({ code: 'invalid_request', field: 'metadata.id' });
  });

  it('reference: the same reference, amount and currency returns the same payment; another amount is reference_in_use', async () => {
    const first = await suite.shop.createPayment({ reference: 'ref-42' });
    const again = await suite.shop.createPayment({ reference: 'ref-42' });
    expect(again.id).toBe(first.id);
    const other = await suite.shop.post('/payments', { amount: 5_000, currency: 'USD', reference: 'ref-42' });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'reference_in_use', field: 'reference' });
    const concurrent = await Promise.all(Array.from({ length: 8 }, () => suite.shop.post('/payments', { amount: 700, currency: 'USD', reference: 'ref-race' })));
    expect(new Set(concurrent.map((a) => a.body.data.id)).size).toBe(1);
  });

  it('validation: amount range, currency, e-mail, metadata limits, unknown fields', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ amount: 99, currency: 'USD' }, 'invalid_request', 'amount'],
      [{ amount: 100_000_001, currency: 'USD' }, 'invalid_request', 'amount'],
      [{ amount: 10.5, currency: 'USD' }, 'invalid_request', 'amount'],
      [{ amount: 1000, currency: 'XYZ' }, 'invalid_request', 'currency'],
      [{ amount: 1000, currency: 'USD', customer_email: 'not-an-email' }, 'invalid_email', 'customer_email'],
      [{ amount: 1000, currency: 'USD', metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 'invalid_request', 'metadata'],
      [{ amount: 1000, currency: 'USD', metadata: { 'bad key': 'v' } }, 'invalid_request', 'metadata.bad key'],
      [{ amount: 1000, currency: 'USD', metadata: { k: 'x'.repeat(501) } }, 'invalid_request', 'metadata.k'],
      [{ amount: 1000, currency: 'USD', colour: 'red' }, 'invalid_request', 'colour'],
      [{ amount: 1000, currency: 'USD', expires_at: '2001-01-01T00:00:00.000Z' }, 'invalid_request', 'expires_at'],
    ];
    for (const [body, code, field] of cases) {
      const answer = await suite.shop.post('/payments', body);
      expect({ body, status: answer.status, code: answer.body.error?.code, field: answer.body.error?.field }).toEqual({ body, status: 400, code, field });
    }
  });

  it('POST /checkouts errors', async () => {
    const payment = await suite.shop.createPayment();
    const code = payment.url.split('/').pop();
    const anon = suite.shop.as(null);
    const open = (body: Record<string, unknown>, headers: Record<string, string> = { 'idempotency-key': `k-${Math.random()}` }) => anon.post('/checkouts', body, headers);
    expect((await open({ payment_code: code, asset: 'USDC', network: 'polygon' }, {})).body.error.code).toBe('idempotency_key_required');
    expect((await open({ payment_code: 'nope', asset: 'USDC', network: 'polygon' })).body.error.code).toBe('payment_not_found');
    expect((await open({ link_code: 'nope' })).body.error.code).toBe('link_not_found');
    expect((await open({ payment_code: code, asset: 'BTC', network: 'polygon' })).body.error.code).toBe('asset_unavailable');
    expect((await open({ payment_code: code, rail: 'card', email: 'a@b.co', country: 'KP' })).body.error.code).toBe('rail_unavailable');
    expect((await open({ payment_code: code, asset: 'USDC', network: 'polygon', email: 'nope' })).body.error.code).toBe('invalid_email');
    expect((await open({ payment_code: code, asset: 'USDC', network: 'polygon', simulate: 'late' })).body.error).toMatchObject({ code: 'invalid_request', field: 'simulate' });
    const expiring = await suite.shop.createPayment({ expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    await suite.shop.advance(2 * 3600);
    expect((await suite.shop.payment(expiring.id)).status).toBe('failed');
    expect((await open({ payment_code: expiring.url.split('/').pop(), asset: 'USDC', network: 'polygon' })).status).toBe(410);
  });

  it('replaces: the same choice returns the same quote and address; another choice opens a new checkout', async () => {
    const payment = await suite.shop.createPayment();
    const first = await suite.shop.openCheckout(payment);
    const same = await suite.shop.openCheckout(payment, { replaces: first.id });
    expect(same.id).toBe(first.id);
    expect(same.crypto.address).toBe(first.crypto.address);
    const different = await suite.shop.openCheckout(payment, { replaces: first.id, asset: 'ETH', network: 'base' });
    expect(different.id).not.toBe(first.id);
    expect(different.crypto.address).not.toBe(first.crypto.address);
  });

  it('a transfer on its way: no other checkout opens (409 payment_in_flight, documented); replaces with the same choice answers the confirming quote (outside audit, 2026-11-29)', async () => {
    const payment = await suite.shop.createPayment();
    const first = await suite.shop.openCheckout(payment);
    expect((await suite.shop.markSent(first.id)).status).toBe('confirming');
    const code = payment.url.split('/').pop();
    const other = await suite.shop.postOnce('/checkouts', { payment_code: code, asset: 'USDC', network: 'polygon' });
    expect({ status: other.status, code: other.body.error?.code }).toEqual({ status: 409, code: 'payment_in_flight' });
    const followed = await suite.shop.openCheckout(payment, { replaces: first.id });
    expect(followed).toMatchObject({ id: first.id, status: 'confirming', crypto: { address: first.crypto.address } });
    const elsewhere = await suite.shop.postOnce('/checkouts', { payment_code: code, asset: 'USDC', network: 'polygon', replaces: first.id });
    expect(elsewhere.body.error?.code).toBe('payment_in_flight'); // another choice while the money is on its way
    const openapi = (await (await fetch(`${suite.api.base}/openapi.json`)).json()) as { paths: Record<string, { post?: { responses: Record<string, { description?: string }> } }> };
    expect(JSON.stringify(openapi.paths['/checkouts'].post!.responses['409'])).toContain('payment_in_flight');
  });

  it('a transfer to a superseded quote in another coin goes to review, read in its own coin; the read side keeps going (audit, 2026-11-28)', async () => {
    const payment = await suite.shop.createPayment();
    const usdc = await suite.shop.openCheckout(payment, { asset: 'USDC', network: 'ethereum' });
    const eth = await suite.shop.openCheckout(payment, { asset: 'ETH', network: 'ethereum' }); // sets the USDC quote aside
    const first = await suite.shop.markSent(usdc.id, 'exact');
    expect(first.status).toBe('confirming'); // the USDC quote is the method again
    const second = await suite.shop.markSent(eth.id, 'exact');
    // a second payment: the checkout says why it is in review (0025 addendum, 2026-11-29, multi-quote; it said `confirming` before)
    expect(second).toMatchObject({ status: 'needs_review', review_reason: 'duplicate_payment', crypto: { asset: 'ETH', received_amount: eth.crypto.amount } });
    const reviewed = await suite.shop.payment(payment.id);
    expect(reviewed).toMatchObject({ status: 'needs_review', method: { asset: 'USDC', amount: '100', expected_amount: '100', tx_hash: first.crypto.tx_hash }, settlement: { asset: 'USDC', amount: '100' } });
    // every business's reads still follow the log (the payments projection did not stop on it)
    const later = await suite.other.createPayment();
    expect(await suite.other.payment(later.id)).toEqual(later);
    const health = (await (await fetch(`${suite.api.base}/health`)).json()) as { data: { status: string } };
    expect(health.data.status).toBe('ok');
  });

  it('isolation: another business gets 404 for every payment route', async () => {
    const payment = await suite.shop.createPayment();
    expect((await suite.other.get(`/payments/${payment.id}`)).status).toBe(404);
    expect((await suite.other.patch(`/payments/${payment.id}`, { metadata: { a: 'b' } })).status).toBe(404);
    expect((await suite.other.post(`/payments/${payment.id}/cancel`)).status).toBe(404);
    expect((await suite.other.post(`/payments/${payment.id}/accept`)).status).toBe(404);
    expect((await suite.other.postOnce(`/payments/${payment.id}/request-remainder`)).status).toBe(404);
    const list = await suite.other.get('/payments');
    expect(list.body.data.map((p: { id: string }) => p.id)).not.toContain(payment.id);
  });

  it('lists payments newest first with filters and cursors; a foreign cursor is refused', async () => {
    const lister = (await businessWithKey(suite.api, true, 'Lister')).client;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await lister.createPayment({ metadata: { batch: i % 2 === 0 ? 'even' : 'odd' } })).id);
    const page1 = await lister.get('/payments?limit=2');
    expect(page1.body).toMatchObject({ has_more: true });
    expect(page1.body.data.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[3]]);
    // the body is joined from stored JSON (decision 0018): the same objects and type as every route's
    expect(page1.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(page1.body)).toEqual(['data', 'has_more', 'next_cursor']);
    expect(page1.body.data[0]).toEqual((await lister.get(`/payments/${ids[4]}`)).body.data);
    const page2 = await lister.get(`/payments?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    const even = await lister.get('/payments?metadata[batch]=even');
    expect(even.body.data.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[2], ids[0]]);
    const foreign = await lister.get(`/payments?metadata[batch]=even&cursor=${page1.body.next_cursor}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: 'invalid_request', field: 'cursor' });
    // the same list of another business is another list: its cursor is refused too (§2 Lists)
    const otherBusiness = await suite.other.get(`/payments?limit=2&cursor=${page1.body.next_cursor}`);
    expect(otherBusiness.status).toBe(400);
    expect(otherBusiness.body.error).toMatchObject({ code: 'invalid_request', field: 'cursor' });
    expect((await lister.get('/payments?limit=0')).status).toBe(400);
    expect((await lister.get('/payments?status=bogus')).status).toBe(400);
  });

  it('test clock: a live business gets 403 test_mode_unavailable; live payments need a live key', async () => {
    const answer = await suite.live.post('/test_clock/advance', { seconds: 10 });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('test_mode_unavailable');
  });

  describe('a payment paid on two quotes (0025 addendum, 2026-11-29, multi-quote; outside audit K1, M1, M4, L2)', () => {
    /** A $15 payment, its USDC/ethereum quote set aside (POST supersede), then the quote on screen (`second`) replacing it. */
    async function twoQuotes(second: Record<string, unknown>) {
      const payment = await suite.shop.createPayment({ amount: 1_500 });
      const first = await suite.shop.openCheckout(payment, { asset: 'USDC', network: 'ethereum' });
      expect((await suite.shop.post(`/checkouts/${first.id}/supersede`)).status).toBe(200);
      const current = await suite.shop.openCheckout(payment, { ...second, replaces: first.id });
      return { payment, first, current };
    }
    const checkout = async (id: string) => (await suite.shop.get(`/checkouts/${id}`)).body.data;

    it('K1 + L2: full transfers to the set-aside and the current quote → in review for a stated reason (duplicate_payment on the second), no method_selected the customer never made; accepted → both counted, the review ends', async () => {
      const { payment, first, current } = await twoQuotes({ asset: 'USDC', network: 'polygon' });
      await suite.shop.markSent(first.id, 'exact');
      await suite.shop.markSent(current.id, 'exact');
      const second = await eventually(() => checkout(current.id), (c) => c.status === 'needs_review', { what: 'the second quote in review' });
      expect(second).toMatchObject({ review_reason: 'duplicate_payment', crypto: { received_amount: '15', remaining_amount: null, remaining_payment_uri: null } });
      const reviewed = await eventually(() => suite.shop.payment(payment.id), (p) => p.status === 'needs_review', { what: 'payment in review' });
      expect(reviewed.amount_received).toBe(0); // in review the business decides, as for every other reason (0025)
      expect(types(reviewed).filter((t) => t === 'method_selected')).toHaveLength(2); // the two quotes the customer opened, no third
      expect(reviewed.checkout_id).toBe(first.id); // the quote the payment is paid through (documented in 0025)
      await suite.shop.advance(120);
      expect(await eventually(() => checkout(first.id), (c) => c.status === 'completed', { what: 'first quote completed' })).toMatchObject({ review_reason: null });
      expect(await checkout(current.id)).toMatchObject({ status: 'needs_review', review_reason: 'duplicate_payment' });
      expect((await suite.shop.post(`/payments/${payment.id}/accept`)).status).toBe(200);
      const accepted = await eventually(() => suite.shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'accepted' });
      expect(accepted).toMatchObject({ amount_received: 3_000, reporting: { amount: 3_000, fee: 30, net: 2_970 }, method: { overpaid_amount: '15' } });
      expect(await eventually(() => checkout(current.id), (c) => c.status === 'completed', { what: 'review ended' })).toMatchObject({ review_reason: 'duplicate_payment' });
    });

    it('M1: 15 USDC to the set-aside quote and the whole ETH quote to the current one → accepting counts both coins, each at its own quote (3,000), nothing lost from the books', async () => {
      const { payment, first, current } = await twoQuotes({ asset: 'ETH', network: 'ethereum' });
      await suite.shop.markSent(first.id, 'exact');
      await suite.shop.markSent(current.id, 'exact');
      await suite.shop.advance(120);
      expect(await eventually(() => checkout(current.id), (c) => c.confirmations.current === c.confirmations.required, { what: 'ETH transfer final' })).toMatchObject({ status: 'needs_review', review_reason: 'duplicate_payment', crypto: { asset: 'ETH', received_amount: current.crypto.amount } });
      expect((await suite.shop.post(`/payments/${payment.id}/accept`)).status).toBe(200);
      const accepted = await eventually(() => suite.shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'accepted' });
      expect(accepted).toMatchObject({ amount_received: 3_000, reporting: { amount: 3_000, fee: 30, transaction_fee: 0, net: 2_970 }, method: { asset: 'USDC', amount: '15' } });
      expect(await eventually(() => checkout(current.id), (c) => c.status === 'completed', { what: 'ETH checkout completed' })).toMatchObject({ failure_code: null });
      // the receipt's transfers each name their coin: the ETH one does not read as USDC
      const receipt = (await suite.shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
      expect(receipt.transfers.map((t: { asset: string; amount: string }) => [t.asset, t.amount])).toEqual([
        ['USDC', first.crypto.amount],
        ['ETH', current.crypto.amount],
      ]);
    });

    it('M4: 13.5 + 13.5 USDC for a $15 price → no checkout asks for more (remaining null, no payment URI), a further mark-sent adds nothing; accepted → 2,700 with 12 USDC overpaid', async () => {
      const { payment, first, current } = await twoQuotes({ asset: 'USDC', network: 'polygon' });
      await suite.shop.markSent(first.id, 'underpaid');
      await suite.shop.markSent(current.id, 'underpaid');
      await suite.shop.advance(120);
      const a = await eventually(() => checkout(first.id), (c) => c.confirmations.current === c.confirmations.required && c.status !== 'confirming', { what: 'first quote final' });
      expect(a).toMatchObject({ status: 'completed', crypto: { received_amount: '13.5', remaining_amount: null, remaining_payment_uri: null } });
      const b = await eventually(() => checkout(current.id), (c) => c.confirmations.current === c.confirmations.required, { what: 'second quote final (32 on polygon)' });
      expect(b).toMatchObject({ status: 'needs_review', review_reason: 'duplicate_payment', crypto: { received_amount: '13.5', remaining_amount: null, remaining_payment_uri: null } });
      for (const id of [first.id, current.id]) expect((await suite.shop.markSent(id, 'exact')).crypto.received_amount).toBe('13.5');
      expect((await suite.shop.payment(payment.id)).method).toMatchObject({ amount: '27' });
      expect((await suite.shop.post(`/payments/${payment.id}/accept`)).status).toBe(200);
      const accepted = await eventually(() => suite.shop.payment(payment.id), (p) => p.status === 'succeeded', { what: 'accepted' });
      expect(accepted).toMatchObject({ amount_received: 2_700, method: { amount: '27', overpaid_amount: '12' } });
    });
  });
});
