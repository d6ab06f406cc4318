import { randomUUID } from 'node:crypto';
import { ServicePauses } from '@lib/operations';
import { Client, appPerSuite, businessWithKey, shopAndLive, startApp } from '../../support/fixtures';
import { eventually } from '../../support/eventually';

/**
 * The card rail end to end over real HTTP (issue 12 point 2, issue 19 A7 A8, decision 0026): a
 * simulated business's card checkout, attempts on the simulated processors' secure pages
 * (submitted as a browser would, a form POST, then the redirect back to the checkout page), the
 * results recorded by the processor's own report or by the page's confirm, declines, the next
 * route, timeouts on the test clock, cancel during the secure page, receipts, supersede; every
 * card error code reached.
 */
describe('card checkouts over HTTP (simulated processors)', () => {
  const suite = appPerSuite(
    () => startApp('embedded', { TRUSTED_PROXIES: 'loopback' }),
    shopAndLive,
  );

  const codeOf = (payment: { url: string }) => payment.url.split('/').pop()!;

  async function openCard(client: Client, payment: { url: string }, fields: Record<string, unknown> = {}) {
    const answer = await client.as(null).postOnce('/checkouts', { payment_code: codeOf(payment), rail: 'card', email: 'ann@example.com', country: 'US', ...fields });
    if (answer.status !== 201) throw new Error(`open card checkout: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  async function startAttempt(client: Client, checkoutId: string, body: Record<string, unknown> = {}) {
    const answer = await client.as(null).postOnce(`/checkouts/${checkoutId}/card-attempts`, body);
    if (answer.status !== 201) throw new Error(`card attempt: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  }

  /** A new payment of the shop, its card checkout, and the attempt started on it. */
  async function startedCard() {
    const payment = await suite.shop.createPayment();
    const opened = await openCard(suite.shop, payment);
    return { payment, opened, attempt: await startAttempt(suite.shop, opened.id) };
  }

  /** The customer's browser on the secure page: GET it, POST the form; the redirect's Location. */
  async function payOnPage(secureUrl: string, number: string, extra: Record<string, string> = {}) {
    const page = await fetch(secureUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<label for="number">Card number</label>');
    expect(html).toContain('Pay</button>');
    const form = new URLSearchParams({ number, expiry: '12/39', cvc: '123', name: 'Ann Example', ...extra });
    return fetch(secureUrl, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
  }

  async function checkout(client: Client, id: string) {
    const answer = await client.get(`/checkouts/${id}`);
    expect(answer.status).toBe(200);
    return answer.body.data;
  }

  it('opens a card checkout: rail card, no crypto, card routes, breakdown (the business pays the fee: no processing_fee); the payment’s method is a card', async () => {
    const payment = await suite.shop.createPayment();
    const opened = await openCard(suite.shop, payment);
    expect(opened).toMatchObject({ kind: 'checkout', rail: 'card', status: 'open', crypto: null, confirmations: { current: 0, required: 0 }, expires_at: null, amount: 10_000 });
    expect(opened.breakdown).toEqual({ currency: 'USD', price: 10_000, processing_fee: null, network_fee: null, total: 10_000 });
    expect(opened.card).toEqual({ route: 1, routes: 2, processor: 'simulated_a', attempt: null, brand: null, last4: null, decline_code: null, retryable: true });
    const read = await suite.shop.payment(payment.id);
    expect(read.method).toMatchObject({ rail: 'card', asset: null, network: null, amount: null, card: null });
    expect(read.events.find((e: { type: string }) => e.type === 'method_selected').data).toEqual({ rail: 'card', asset: null, network: null });
    expect(read.checkout_id).toBe(opened.id);
    expect(read.country).toBe('US');
    // BR: the second processor does not serve it, a single route
    expect((await openCard(suite.shop, await suite.shop.createPayment(), { country: 'BR' })).card).toMatchObject({ routes: 1, processor: 'simulated_a' });
  });

  it('POST /checkouts card refusals: email_required, amount_out_of_range, rail_unavailable (business, country), asset/network named', async () => {
    const noEmail = await suite.shop.createPayment();
    const missing = await suite.shop.as(null).postOnce('/checkouts', { payment_code: codeOf(noEmail), rail: 'card', country: 'US' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'email_required', field: 'email' });

    for (const amount of [499, 1_000_001]) {
      const payment = await suite.shop.createPayment({ amount });
      const refused = await suite.shop.as(null).postOnce('/checkouts', { payment_code: codeOf(payment), rail: 'card', email: 'a@example.com', country: 'US' });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'amount_out_of_range', field: 'amount' });
    }
    // the bounds themselves are in: $5 and $10,000
    expect((await openCard(suite.shop, await suite.shop.createPayment({ amount: 500 }))).breakdown.total).toBe(500);
    expect((await openCard(suite.shop, await suite.shop.createPayment({ amount: 1_000_000 }))).breakdown.total).toBe(1_000_000);

    const livePayment = await suite.live.createPayment();
    const live = await suite.live.as(null).postOnce('/checkouts', { payment_code: codeOf(livePayment), rail: 'card', email: 'a@example.com', country: 'US' });
    expect(live.status).toBe(400);
    expect(live.body.error).toMatchObject({ code: 'rail_unavailable', field: 'rail' });

    const payment = await suite.shop.createPayment();
    for (const country of ['KP', 'IR', 'CU', 'SY']) {
      const refused = await suite.shop.as(null).postOnce('/checkouts', { payment_code: codeOf(payment), rail: 'card', email: 'a@example.com', country });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'rail_unavailable', field: 'country' });
    }
    for (const [field, value] of [['asset', 'USDC'], ['network', 'ethereum']]) {
      const refused = await suite.shop.as(null).postOnce('/checkouts', { payment_code: codeOf(payment), rail: 'card', email: 'a@example.com', country: 'US', [field]: value });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', field });
    }
    const noCountry = await suite.shop.as(null).postOnce('/checkouts', { payment_code: codeOf(payment), rail: 'card', email: 'a@example.com' });
    expect(noCountry.body.error).toMatchObject({ code: 'invalid_request', field: 'country' });
  });

  it('country is a country: two letters that name none (XX, ZZ, UK for GB) are 400 invalid_request naming country, nothing opened; GB and XK are taken (card audit, 2026-11-28)', async () => {
    const payment = await suite.shop.createPayment();
    for (const country of ['XX', 'ZZ', 'UK', 'us']) {
      const refused = await suite.shop.as(null).postOnce('/checkouts', { payment_code: codeOf(payment), rail: 'card', email: 'a@example.com', country });
      expect([country, refused.status, refused.body.error.code, refused.body.error.field]).toEqual([country, 400, 'invalid_request', 'country']);
    }
    const crypto = await suite.shop.as(null).postOnce('/checkouts', { payment_code: codeOf(payment), asset: 'USDC', network: 'ethereum', country: 'XX' });
    expect([crypto.status, crypto.body.error.field]).toEqual([400, 'country']);
    expect(await suite.shop.payment(payment.id)).toMatchObject({ checkout_id: null, country: null, method: null });
    expect((await openCard(suite.shop, payment, { country: 'GB' })).card.routes).toBe(2);
    expect((await openCard(suite.shop, payment, { country: 'XK' })).card.routes).toBe(2);
  });

  it('no card attempt while a crypto transfer to the payment is on its way: 409 payment_in_flight, nothing started (audit, 2026-11-28)', async () => {
    const payment = await suite.shop.createPayment();
    const crypto = await suite.shop.openCheckout(payment);
    const card = await openCard(suite.shop, payment); // the crypto quote stays watched
    expect((await suite.shop.markSent(crypto.id, 'exact')).status).toBe('confirming');
    const refused = await suite.shop.as(null).postOnce(`/checkouts/${card.id}/card-attempts`, {});
    expect([refused.status, refused.body.error.code]).toEqual([409, 'payment_in_flight']);
    expect((await suite.shop.as(null).get(`/checkouts/${card.id}`)).body.data.card.attempt).toBeNull();
    await suite.shop.advance(60);
    expect(await suite.shop.payment(payment.id)).toMatchObject({ status: 'succeeded', method: { rail: 'crypto' } });
  });

  it('success end to end: attempt → secure page → redirect to the checkout page → confirm → completed; payment succeeded; card receipt', async () => {
    const payment = await suite.shop.createPayment();
    const opened = await openCard(suite.shop, payment);
    const started = await startAttempt(suite.shop, opened.id, { route: 1 });
    expect(started.status).toBe('awaiting_customer');
    expect(started.card.attempt).toMatchObject({ number: 1, route: 1, processor: 'simulated_a', status: 'pending' });
    expect(started.card.attempt.id).toMatch(/^att_/);
    expect(started.card.attempt.secure_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${suite.api.port}/simulated-processor/attempts/sim_`));
    expect(started.expires_at).toBe(started.card.attempt.expires_at);
    expect(started.card.retryable).toBe(false);

    // the page itself: strict CSP, no external resource, the test cards listed
    const page = await fetch(started.card.attempt.secure_url);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await page.text();
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
    expect(html).toContain('4000 0000 0000 0259');

    const back = await payOnPage(started.card.attempt.secure_url, '4242 4242 4242 4242');
    expect(back.status).toBe(303);
    const returnUrl = new URL(back.headers.get('location')!);
    expect(`${returnUrl.origin}${returnUrl.pathname}`).toBe(payment.url);
    expect(returnUrl.searchParams.get('s')).toBe(opened.id);
    expect(returnUrl.searchParams.get('attempt')).toBe(started.card.attempt.id);

    const confirmed = await suite.shop.as(null).post(`/checkouts/${opened.id}/card-attempts/${returnUrl.searchParams.get('attempt')}/confirm`);
    expect(confirmed.status).toBe(200);
    // the card object names the route that paid, as its attempt does (was the next route's: route 2, simulated_b; audit, 2026-11-28)
    expect(confirmed.body.data).toMatchObject({ status: 'completed', card: { route: 1, routes: 2, processor: 'simulated_a', brand: 'visa', last4: '4242', decline_code: null, retryable: false } });
    expect(confirmed.body.data.card.attempt).toMatchObject({ status: 'succeeded', secure_url: null });
    expect(confirmed.body.data.expires_at).toBeNull();

    const paid = await suite.shop.payment(payment.id);
    expect(paid.status).toBe('succeeded');
    expect(paid.amount_received).toBe(10_000);
    expect(paid.reporting).toEqual({ currency: 'USD', amount: 10_000, fee: 100, transaction_fee: 0, customer_fee: 0, net: 9_900 });
    expect(paid.method).toEqual({ rail: 'card', asset: null, network: null, amount: null, expected_amount: null, overpaid_amount: null, from_address: null, tx_hash: null, explorer_url: null, card: { processor: 'simulated_a', brand: 'visa', last4: '4242' } });
    expect(paid.events.map((e: { type: string }) => e.type)).toEqual(['created', 'method_selected', 'succeeded']);
    const events = await suite.shop.get(`/events?subject_id=${payment.id}&type=payment.succeeded`);
    expect(events.body.data).toHaveLength(1);

    const receipt = (await suite.shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
    expect(receipt).toMatchObject({ rail: 'card', crypto: null, transfers: [], transaction: null, status: 'succeeded', received_amount: '100', overpaid_amount: null });
    // the business pays the fee: the receipt shows none
    expect(receipt.breakdown).toEqual({ currency: 'USD', price: 10_000, processing_fee: null, network_fee: null, total: 10_000 });
    expect(JSON.stringify(receipt)).not.toMatch(/reporting|fee_rate_bps|customer_id|"email"|"fee"/);
    expect(receipt.paid_at).not.toBeNull();

    // confirming again: unchanged
    const again = await suite.shop.as(null).post(`/checkouts/${opened.id}/card-attempts/${started.card.attempt.id}/confirm`);
    expect(again.status).toBe(200);
    expect(again.body.data.updated_at).toBe(confirmed.body.data.updated_at);
  });

  it('the secure page answers malformed posts with a 4xx page and records nothing (JSON, garbage, missing fields, unknown attempts)', async () => {
    const { opened, attempt: started } = await startedCard();
    const url: string = started.card.attempt.secure_url;
    const tries: [string, RequestInit][] = [
      [url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"number": "4242424242424242"}' }],
      [url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '%%%=&&=' }],
      [url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'number=4242424242424242' }],
      [url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'number=not-a-card&expiry=12%2F30&cvc=123' }],
      [url, { method: 'POST' }],
      [`${url}/challenge`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'outcome=maybe' }],
      [url.replace(/sim_[^/]+$/, 'sim_unknown'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'number=4242424242424242&expiry=12%2F30&cvc=123' }],
    ];
    for (const [target, init] of tries) {
      const answer = await fetch(target, { ...init, redirect: 'manual' });
      expect({ target, body: init.body, status: answer.status >= 400 && answer.status < 500 }).toEqual({ target, body: init.body, status: true });
    }
    expect(await checkout(suite.shop, opened.id)).toMatchObject({ status: 'awaiting_customer', card: { attempt: { status: 'pending' } } });
  });

  it('a card receipt omits the fee the business pays, and has no received_amount until paid', async () => {
    const payment = await suite.shop.createPayment();
    await openCard(suite.shop, payment);
    const receipt = (await suite.shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
    expect(receipt).toMatchObject({ rail: 'card', crypto: null, transfers: [], transaction: null, received_amount: null, paid_at: null });
    expect(receipt.breakdown).toEqual({ currency: 'USD', price: 10_000, processing_fee: null, network_fee: null, total: 10_000 });
    // the crypto receipt follows the same rule
    const cryptoBusinessPays = await suite.shop.createPayment();
    await suite.shop.openCheckout(cryptoBusinessPays);
    expect((await suite.shop.as(null).get(`/public/receipts/${cryptoBusinessPays.id}`)).body.data.breakdown).toMatchObject({ processing_fee: null, total: 10_000 });
  });

  it('without confirm: the processor reports the result itself (the results sink) the moment the page is submitted', async () => {
    const { payment, opened, attempt: started } = await startedCard();
    const back = await payOnPage(started.card.attempt.secure_url, '5555555555554444');
    expect(back.status).toBe(303);
    const done = await checkout(suite.shop, opened.id);
    expect(done).toMatchObject({ status: 'completed', card: { brand: 'mastercard', last4: '4444' } });
    expect((await suite.shop.payment(payment.id)).status).toBe('succeeded');
  });

  it('decline → failed with the code → next route → success; stale_route, no_route, route_in_progress', async () => {
    const { payment, opened, attempt: first } = await startedCard();
    const inProgress = await suite.shop.as(null).postOnce(`/checkouts/${opened.id}/card-attempts`, {});
    expect(inProgress.status).toBe(409);
    expect(inProgress.body.error.code).toBe('route_in_progress');

    await payOnPage(first.card.attempt.secure_url, '4000 0000 0000 0002');
    const declined = await checkout(suite.shop, opened.id);
    expect(declined).toMatchObject({ status: 'failed', failure_code: 'card_declined', card: { route: 2, processor: 'simulated_b', decline_code: 'card_declined', retryable: true } });
    expect(declined.card.attempt).toMatchObject({ status: 'declined', secure_url: null });
    expect((await suite.shop.payment(payment.id)).status).toBe('pending');

    const stale = await suite.shop.as(null).postOnce(`/checkouts/${opened.id}/card-attempts`, { route: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('stale_route');

    const second = await startAttempt(suite.shop, opened.id, { route: 2 });
    expect(second).toMatchObject({ status: 'awaiting_customer', failure_code: null, card: { route: 2, processor: 'simulated_b' } });
    expect(second.card.attempt).toMatchObject({ number: 2, route: 2, processor: 'simulated_b', status: 'pending' });
    // the first attempt is no longer the current one
    const staleConfirm = await suite.shop.as(null).post(`/checkouts/${opened.id}/card-attempts/${first.card.attempt.id}/confirm`);
    expect(staleConfirm.status).toBe(409);
    expect(staleConfirm.body.error.code).toBe('stale_route');
    const unknown = await suite.shop.as(null).post(`/checkouts/${opened.id}/card-attempts/att_nope/confirm`);
    expect(unknown.status).toBe(404);

    const back = await payOnPage(second.card.attempt.secure_url, '4242424242424242');
    const confirmed = await suite.shop.as(null).post(`/checkouts/${opened.id}/card-attempts/${new URL(back.headers.get('location')!).searchParams.get('attempt')}/confirm`);
    expect(confirmed.body.data).toMatchObject({ status: 'completed', failure_code: null });
    expect((await suite.shop.payment(payment.id)).status).toBe('succeeded');

    // every route used: no_route
    const other = await openCard(suite.shop, await suite.shop.createPayment());
    for (const n of [1, 2]) {
      const attempt = await startAttempt(suite.shop, other.id);
      await payOnPage(attempt.card.attempt.secure_url, '4000000000009995');
      expect((await checkout(suite.shop, other.id)).failure_code).toBe('insufficient_funds');
      expect(n).toBeGreaterThan(0);
    }
    const exhausted = await checkout(suite.shop, other.id);
    expect(exhausted.card).toMatchObject({ route: 2, routes: 2, retryable: false });
    const none = await suite.shop.as(null).postOnce(`/checkouts/${other.id}/card-attempts`, {});
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('no_route');
  });

  it('no second card attempt on another checkout of the payment while a secure page may still take the card: 409 route_in_progress, nothing started; once that checkout is canceled the customer pays again (card audit, 2026-11-28)', async () => {
    // two tabs, or a supersede of an awaiting card checkout: both secure pages paid would charge the card twice
    const { payment, opened: first, attempt } = await startedCard();
    const second = await openCard(suite.shop, payment); // no replaces: a second tab
    const refused = await suite.shop.as(null).postOnce(`/checkouts/${second.id}/card-attempts`, {});
    expect([refused.status, refused.body.error.code, refused.body.error.field]).toEqual([409, 'route_in_progress', null]);
    expect(await checkout(suite.shop, second.id)).toMatchObject({ status: 'open', card: { attempt: null } });
    // a supersede of the awaiting one and a checkout that replaces it: refused the same way
    expect((await suite.shop.as(null).post(`/checkouts/${first.id}/supersede`)).body.data.status).toBe('awaiting_customer');
    const replacing = await openCard(suite.shop, payment, { replaces: first.id });
    expect((await suite.shop.as(null).postOnce(`/checkouts/${replacing.id}/card-attempts`, {})).body.error.code).toBe('route_in_progress');
    // the customer cancels the first: a new attempt starts; the first page paid after goes to review
    expect((await suite.shop.as(null).post(`/checkouts/${first.id}/cancel`)).body.data.status).toBe('canceled');
    const next = await startAttempt(suite.shop, replacing.id);
    await payOnPage(next.card.attempt.secure_url, '4242424242424242');
    expect(await suite.shop.payment(payment.id)).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    await payOnPage(attempt.card.attempt.secure_url, '5555555555554444');
    expect(await checkout(suite.shop, first.id)).toMatchObject({ status: 'needs_review', review_reason: 'paid_after_cancel' });
  });

  it('a do-not-retry decline: checkout_not_retryable; a challenge that fails: authentication_failed', async () => {
    const opened = await openCard(suite.shop, await suite.shop.createPayment());
    const attempt = await startAttempt(suite.shop, opened.id);
    await payOnPage(attempt.card.attempt.secure_url, '4100000000000019');
    expect(await checkout(suite.shop, opened.id)).toMatchObject({ status: 'failed', failure_code: 'do_not_retry', card: { retryable: false } });
    const refused = await suite.shop.as(null).postOnce(`/checkouts/${opened.id}/card-attempts`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('checkout_not_retryable');

    const challenged = await openCard(suite.shop, await suite.shop.createPayment());
    const on = await startAttempt(suite.shop, challenged.id);
    const challenge = await payOnPage(on.card.attempt.secure_url, '4000000000003220');
    expect(challenge.status).toBe(200);
    const html = await challenge.text();
    expect(html).toContain('value="complete"');
    expect(html).toContain('value="fail"');
    const failed = await fetch(`${on.card.attempt.secure_url}/challenge`, { method: 'POST', body: new URLSearchParams({ action: 'fail' }), headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(failed.status).toBe(303);
    expect(await checkout(suite.shop, challenged.id)).toMatchObject({ status: 'failed', failure_code: 'authentication_failed', card: { retryable: true } });
    // the next route's challenge completes
    const next = await startAttempt(suite.shop, challenged.id);
    await payOnPage(next.card.attempt.secure_url, '4000000000003220');
    const completed = await fetch(`${next.card.attempt.secure_url}/challenge`, { method: 'POST', body: new URLSearchParams({ action: 'complete' }), headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(completed.status).toBe(303);
    expect((await checkout(suite.shop, challenged.id)).status).toBe('completed');
  });

  it('the processor never answers: the attempt times out on the test clock (processor_timeout), retryable on the next route', async () => {
    const { payment, opened, attempt } = await startedCard();
    const back = await payOnPage(attempt.card.attempt.secure_url, '4000000000000259');
    expect(back.status).toBe(303);
    const still = await suite.shop.as(null).post(`/checkouts/${opened.id}/card-attempts/${attempt.card.attempt.id}/confirm`);
    expect(still.status).toBe(200);
    expect(still.body.data).toMatchObject({ status: 'awaiting_customer', card: { attempt: { status: 'pending' } } });
    await suite.shop.advance(11 * 60);
    const timedOut = await checkout(suite.shop, opened.id);
    expect(timedOut).toMatchObject({ status: 'failed', failure_code: 'processor_timeout', expires_at: null, card: { route: 2, retryable: true, attempt: { status: 'timed_out', secure_url: null } } });
    expect((await suite.shop.payment(payment.id)).status).toBe('pending');
    const next = await startAttempt(suite.shop, opened.id, { route: 2 });
    expect(next.card.attempt).toMatchObject({ route: 2, processor: 'simulated_b' });
  });

  it('§3 cancel while the secure page is open, then the customer pays there: needs_review (paid_after_cancel), payment.needs_review', async () => {
    const { payment, opened, attempt } = await startedCard();
    const canceled = await suite.shop.as(null).post(`/checkouts/${opened.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ status: 'canceled', canceled_by: 'customer' });
    // nothing to record yet, and the checkout no longer waits: checkout_not_awaiting, on confirm and on a new attempt
    const early = await suite.shop.as(null).post(`/checkouts/${opened.id}/card-attempts/${attempt.card.attempt.id}/confirm`);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('checkout_not_awaiting');
    const again = await suite.shop.as(null).postOnce(`/checkouts/${opened.id}/card-attempts`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('checkout_not_awaiting');
    // the secure page was not closed
    await payOnPage(attempt.card.attempt.secure_url, '4242424242424242');
    expect(await checkout(suite.shop, opened.id)).toMatchObject({ status: 'needs_review', review_reason: 'paid_after_cancel', canceled_by: 'customer' });
    const review = await suite.shop.payment(payment.id);
    expect(review.status).toBe('needs_review');
    await eventually(async () => {
      const events = await suite.shop.get(`/events?subject_id=${payment.id}&type=payment.needs_review`);
      expect(events.body.data).toHaveLength(1);
      expect(events.body.data[0].data.status).toBe('needs_review');
      return true;
    });
    // the business accepts it: succeeded with what the card was charged
    const accepted = await suite.shop.post(`/payments/${payment.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    // and the checkout's review ends with the payment's: completed, its review reason kept (0025 addendum, 2026-11-29)
    const resolved = await eventually(() => checkout(suite.shop, opened.id), (c) => c.status !== 'needs_review', { what: 'card checkout out of review' });
    expect(resolved).toMatchObject({ status: 'completed', review_reason: 'paid_after_cancel', canceled_by: 'customer', failure_code: null });
  });

  it('a card page left open while the payment is paid in crypto: the card checkout fails (payment_succeeded); the card paid there after goes to review (paid_after_close), on the payment a card_charged entry and a payment.updated (0026 addendum, 2026-11-28, later)', async () => {
    const { payment, opened, attempt } = await startedCard();
    const crypto = await suite.shop.openCheckout(payment); // the customer goes back and pays in USDC
    expect((await suite.shop.markSent(crypto.id, 'exact')).status).toBe('confirming');
    await suite.shop.advance(60);
    expect(await suite.shop.payment(payment.id)).toMatchObject({ status: 'succeeded', method: { rail: 'crypto' } });
    await eventually(async () => {
      expect(await checkout(suite.shop, opened.id)).toMatchObject({ status: 'failed', failure_code: 'payment_succeeded' });
      return true;
    });
    // then submits the card page that was still open
    await payOnPage(attempt.card.attempt.secure_url, '4242424242424242');
    await eventually(async () => {
      expect(await checkout(suite.shop, opened.id)).toMatchObject({ status: 'needs_review', review_reason: 'paid_after_close' });
      return true;
    });
    const after = await suite.shop.payment(payment.id);
    expect(after).toMatchObject({ status: 'succeeded', method: { rail: 'crypto' } });
    expect(after.events.at(-1)).toMatchObject({ type: 'card_charged', data: { checkout_id: opened.id, attempt_id: attempt.card.attempt.id, amount: 10_000, currency: 'USD', review_reason: 'paid_after_close' } });
    await eventually(async () => {
      const updates = (await suite.shop.get(`/events?subject_id=${payment.id}&type=payment.updated`)).body.data as { data: { events: { type: string }[] } }[];
      expect(updates.some((e) => e.data.events.some((entry) => entry.type === 'card_charged'))).toBe(true);
      return true;
    });
  });

  it('a card paid on its page while a crypto transfer to another quote of the payment is confirming: the card checkout goes to review with the payment (paid_after_close), never a second completed; accepted on the crypto, its review ends failed (race audit F3, 2026-11-29)', async () => {
    const payment = await suite.shop.createPayment();
    const crypto = await suite.shop.openCheckout(payment);
    const card = await openCard(suite.shop, payment);
    const attempt = await startAttempt(suite.shop, card.id);
    expect((await suite.shop.markSent(crypto.id, 'exact')).status).toBe('confirming');
    // the customer also pays on the card page still open: the processor reports the charge at once
    const paid = await payOnPage(attempt.card.attempt.secure_url, '4242424242424242');
    expect(paid.status).toBe(303);
    const held = await eventually(() => checkout(suite.shop, card.id), (c) => c.status !== 'awaiting_customer' && c.status !== 'completed', { what: 'card checkout in review' });
    expect(held).toMatchObject({ status: 'needs_review', review_reason: 'paid_after_close' });
    const review = await suite.shop.payment(payment.id);
    expect(review.status).toBe('needs_review');
    expect(review.events.find((e: { type: string }) => e.type === 'card_charged')).toMatchObject({ data: { checkout_id: card.id, review_reason: 'paid_after_close' } });
    // accepting while the crypto transfer still confirms is refused: what it brings is counted once it is final (recheck audit N5, 2026-11-29)
    const early = await suite.shop.post(`/payments/${payment.id}/accept`);
    expect([early.status, early.body.error?.code]).toEqual([409, 'payment_in_flight']);
    expect((await suite.shop.payment(payment.id)).status).toBe('needs_review');
    await suite.shop.advance(60);
    expect(await checkout(suite.shop, crypto.id)).toMatchObject({ status: 'completed' });
    expect(await checkout(suite.shop, card.id)).toMatchObject({ status: 'needs_review', review_reason: 'paid_after_close' });
    // the business accepts the crypto payment: the card charge was not counted, its checkout's review ends failed (to refund by hand)
    const accepted = await suite.shop.post(`/payments/${payment.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ status: 'succeeded', amount_received: 10_000, method: { rail: 'crypto' } });
    const resolved = await eventually(() => checkout(suite.shop, card.id), (c) => c.status !== 'needs_review', { what: 'card checkout out of review' });
    expect(resolved).toMatchObject({ status: 'failed', failure_code: 'payment_succeeded', review_reason: 'paid_after_close' });
  });

  it('wrong_rail: card attempts on a crypto checkout; claim and mark-sent on a card checkout', async () => {
    const crypto = await suite.shop.openCheckout(await suite.shop.createPayment());
    const attempt = await suite.shop.as(null).postOnce(`/checkouts/${crypto.id}/card-attempts`, {});
    expect(attempt.status).toBe(409);
    expect(attempt.body.error.code).toBe('wrong_rail');
    const confirm = await suite.shop.as(null).post(`/checkouts/${crypto.id}/card-attempts/att_x/confirm`);
    expect(confirm.body.error.code).toBe('wrong_rail');
    const card = await openCard(suite.shop, await suite.shop.createPayment());
    expect((await suite.shop.as(null).post(`/checkouts/${card.id}/mark-sent`, {})).body.error.code).toBe('wrong_rail');
    await suite.shop.as(null).post(`/checkouts/${card.id}/cancel`);
    expect((await suite.shop.as(null).post(`/checkouts/${card.id}/claim`, { tx_hash: '0x' + 'ab'.repeat(32) })).body.error.code).toBe('wrong_rail');
    expect((await suite.shop.as(null).postOnce('/checkouts/chk_doesnotexist/card-attempts', {})).status).toBe(404);
    expect((await suite.shop.as(null).post(`/checkouts/${card.id}/card-attempts`, {})).body.error.code).toBe('idempotency_key_required');
  });

  it('supersede a declined card checkout (#19 A7): the next card checkout continues on the routes not used', async () => {
    const { payment, opened, attempt } = await startedCard();
    await payOnPage(attempt.card.attempt.secure_url, '4000000000000069');
    expect((await checkout(suite.shop, opened.id)).failure_code).toBe('expired_card');
    const superseded = await suite.shop.as(null).post(`/checkouts/${opened.id}/supersede`);
    expect(superseded.status).toBe(200);
    expect(superseded.body.data.status).toBe('failed');
    const next = await openCard(suite.shop, payment, { replaces: opened.id });
    expect(next.card).toMatchObject({ route: 1, routes: 1, processor: 'simulated_b' });
    expect((await checkout(suite.shop, opened.id)).replaced_by).toBe(next.id);
    const on = await startAttempt(suite.shop, next.id);
    await payOnPage(on.card.attempt.secure_url, '4242424242424242');
    expect((await suite.shop.payment(payment.id)).status).toBe('succeeded');
    // a checkout that completed is not supersedable
    const done = await suite.shop.as(null).post(`/checkouts/${next.id}/supersede`);
    expect(done.status).toBe(409);
    expect(done.body.error.code).toBe('checkout_not_supersedable');
  });

  it('the operator pause of card payments answers 503 temporarily_unavailable on card attempts too', async () => {
    const opened = await openCard(suite.shop, await suite.shop.createPayment());
    const pauses = suite.api.app.get(ServicePauses);
    const operator = { kind: 'operator', id: 'test', name: null };
    await pauses.pause('card_payments', 'card test', operator);
    try {
      await eventually(async () => {
        const paused = await suite.shop.as(null).postOnce(`/checkouts/${opened.id}/card-attempts`, {});
        expect(paused.status).toBe(503);
        expect(paused.body.error.code).toBe('temporarily_unavailable');
        return true;
      });
    } finally {
      await pauses.resume('card_payments', operator);
    }
  });
});

describe('card attempts with a processor unreachable (SIMULATED_CARD_PROCESSORS_DOWN)', () => {
  const suite = appPerSuite(
    () => startApp('embedded', { TRUSTED_PROXIES: 'loopback', SIMULATED_CARD_PROCESSORS_DOWN: 'simulated_a' }),
    async (api) => ({ shop: (await businessWithKey(api, true)).client }),
  );

  it('503 upstream_unavailable, nothing recorded; the same key is free to retry', async () => {
    const payment = await suite.shop.createPayment();
    const opened = (await suite.shop.as(null).postOnce('/checkouts', { payment_code: payment.url.split('/').pop(), rail: 'card', email: 'a@example.com', country: 'US' })).body.data;
    const key = randomUUID();
    const down = await suite.shop.as(null).post(`/checkouts/${opened.id}/card-attempts`, {}, { 'idempotency-key': key });
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('upstream_unavailable');
    const after = (await suite.shop.get(`/checkouts/${opened.id}`)).body.data;
    expect(after).toMatchObject({ status: 'open', card: { attempt: null, route: 1 } });
    const retry = await suite.shop.as(null).post(`/checkouts/${opened.id}/card-attempts`, {}, { 'idempotency-key': key });
    expect(retry.status).toBe(503); // still down: an error is not kept, the key is free
  });
});
