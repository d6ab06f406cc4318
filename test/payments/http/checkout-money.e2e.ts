import { eventually } from '../../support/eventually';
import { appPerSuite, businessWithKey, startApp } from '../../support/fixtures';

/**
 * An outside audit's money findings on one checkout, end to end over HTTP on the embedded store
 * (2026-11-29; decision 0009 and 0012 addenda): request-remainder while the rest is confirming
 * (K2), `replaces` on a quote awaiting the rest of a short transfer (K3), a transfer on another
 * network counted on the checkout as on the payment and the receipt (M2), and a simulated short
 * transfer of a remainder of one smallest unit (L3). Each test has its own simulated business, so
 * its test clock moves no other test's.
 */
describe('checkout money over HTTP (outside audit, 2026-11-29)', () => {
  const suite = appPerSuite(() => startApp('embedded', { TRUSTED_PROXIES: 'loopback' }));
  const shopNamed = async (name: string) => (await businessWithKey(suite.api, true, name)).client;
  const types = (payment: { events: { type: string }[] }) => payment.events.map((e) => e.type);
  const codeOf = (payment: { url: string }) => payment.url.split('/').pop()!;

  it('K2 + N2: request-remainder while the remainder checkout confirms all that is left → 409 nothing_due; while it confirms a short transfer → 409 remainder_unavailable carrying the earliest end of the quote held for the rest (15 minutes from that transfer; decision 0009, addendum 2026-11-30), then the end itself once confirmed', async () => {
    const shop = await shopNamed('K2 remainders');
    for (const rest of ['exact', 'underpaid'] as const) {
      const { payment } = await shop.underpaidQuoteEnded(); // 90 of 100 USDC
      const remainder = (await shop.postOnce(`/payments/${payment.id}/request-remainder`)).body.data.checkout;
      const sentRest = await shop.markSent(remainder.id, rest);
      expect(sentRest).toMatchObject({ status: 'confirming' });

      const now = Date.parse((await shop.get('/test_clock')).body.data.now);
      const refused = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
      let earliest: string | undefined;
      if (rest === 'exact') {
        expect([refused.status, refused.body.error?.code, refused.body.error?.quote_ends_at]).toEqual([409, 'nothing_due', undefined]);
      } else {
        // §4: a quote still live → remainder_unavailable "carries the time the quote ends" (recheck audit N2: it carried none here)
        expect([refused.status, refused.body.error?.code]).toEqual([409, 'remainder_unavailable']);
        earliest = refused.body.error.quote_ends_at;
        // the quote held for the rest runs 15 minutes from the short transfer itself (decision 0009, addendum 2026-11-30)
        expect(earliest).toBe(new Date(Date.parse(sentRest.sent_at) + 15 * 60_000).toISOString());
        expect(Date.parse(earliest!)).toBeGreaterThan(now);
      }
      expect(refused.body.error.message).toMatch(/confirming/);
      expect(types(await shop.payment(payment.id)).filter((t) => t === 'remainder_requested')).toHaveLength(1); // nothing new

      await shop.advance(30);
      const after = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
      if (rest === 'exact') {
        expect((await shop.payment(payment.id)).status).toBe('succeeded');
        expect(after.body.error?.code).toBe('payment_not_underpaid');
      } else {
        // confirmed short: its quote is held for the rest (0009 addendum, 2026-11-29), and the refusal says until when
        expect([after.status, after.body.error?.code]).toEqual([409, 'remainder_unavailable']);
        expect(after.body.error.quote_ends_at).toBe((await shop.get(`/checkouts/${remainder.id}`)).body.data.expires_at);
        expect(Date.parse(after.body.error.quote_ends_at)).toBeGreaterThanOrEqual(Date.parse(earliest!)); // the first answer was not too late
      }
    }
  });

  it('N4: underpaid, a remainder requested, then a late transfer that covers the price (to a set-aside quote, or to the short quote itself) → the remainder checkout stops asking (failed, payment_covered; mark-sent 409 checkout_failed), the payment in review; accepted → everything that arrived counted once', async () => {
    const shop = await shopNamed('N4 covered late');
    for (const target of ['set-aside', 'short'] as const) {
      const payment = await shop.createPayment();
      const first = await shop.openCheckout(payment, { network: 'polygon' });
      expect((await shop.post(`/checkouts/${first.id}/supersede`)).status).toBe(200);
      const current = await shop.openCheckout(payment, { network: 'ethereum', replaces: first.id });
      await shop.markSent(current.id, 'underpaid'); // 90 of 100 USDC on ethereum
      await shop.advance(30);
      await shop.advance(16 * 60); // both quotes ended
      expect((await shop.payment(payment.id)).status).toBe('underpaid');
      const remainder = (await shop.postOnce(`/payments/${payment.id}/request-remainder`)).body.data.checkout;
      expect(remainder).toMatchObject({ remainder: true, status: 'open', crypto: { amount: '10' } });

      // the customer sends late to an address the payment already had: 100 USDC to the set-aside quote, or the 10 left to the short one
      const late = await shop.markSent(target === 'set-aside' ? first.id : current.id, 'late');
      expect(late).toMatchObject({ status: 'needs_review', review_reason: 'late' });
      const stopped = await eventually(() => shop.get(`/checkouts/${remainder.id}`).then((r) => r.body.data), (c) => c.status !== 'open', { what: `${target}: the remainder checkout stops asking` });
      expect(stopped).toMatchObject({ status: 'failed', failure_code: 'payment_covered', crypto: { received_amount: '0', remaining_amount: null, remaining_payment_uri: null } });
      const refused = await shop.post(`/checkouts/${remainder.id}/mark-sent`, {});
      expect([refused.status, refused.body.error?.code]).toEqual([409, 'checkout_failed']);
      const reviewed = await shop.payment(payment.id);
      expect(reviewed.status).toBe('needs_review'); // late money: the business decides (0025)
      const again = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
      expect([again.status, again.body.error?.code]).toEqual([409, 'payment_not_underpaid']);

      expect((await shop.post(`/payments/${payment.id}/accept`)).status).toBe(200);
      const accepted = await shop.payment(payment.id);
      expect(accepted).toMatchObject({ status: 'succeeded', amount_received: target === 'set-aside' ? 19_000 : 10_000 });
      expect((await shop.get(`/checkouts/${remainder.id}`)).body.data).toMatchObject({ status: 'failed', failure_code: 'payment_covered' });
    }
  });

  it('K3: replaces naming a quote awaiting the rest of a short transfer, with the same choice and more than two minutes left → that quote (201); another choice, no replaces, or under two minutes left → 409 payment_paid', async () => {
    const shop = await shopNamed('K3 replaces');
    const payment = await shop.createPayment();
    const code = codeOf(payment);
    const first = await shop.openCheckout(payment);
    await shop.markSent(first.id, 'underpaid');
    await shop.advance(15); // 4 confirmations, 3 s apart: the quote is held 15 minutes for the rest
    const short = (await shop.get(`/checkouts/${first.id}`)).body.data;
    expect(short).toMatchObject({ status: 'awaiting_customer', crypto: { remaining_amount: '10' } });

    const same = await shop.postOnce('/checkouts', { payment_code: code, asset: 'USDC', network: 'ethereum', replaces: first.id });
    expect(same.status).toBe(201);
    expect(same.body.data).toMatchObject({ id: first.id, status: 'awaiting_customer', expires_at: short.expires_at, crypto: { address: first.crypto.address, remaining_amount: '10', remaining_payment_uri: short.crypto.remaining_payment_uri } });
    const elsewhere = await shop.postOnce('/checkouts', { payment_code: code, asset: 'USDC', network: 'polygon', replaces: first.id });
    expect([elsewhere.status, elsewhere.body.error?.code]).toEqual([409, 'payment_paid']);
    const fresh = await shop.postOnce('/checkouts', { payment_code: code, asset: 'USDC', network: 'ethereum' });
    expect([fresh.status, fresh.body.error?.code]).toEqual([409, 'payment_paid']);

    // under two minutes of the quote left: no longer the quote to pay (§4), and no new one for a paid payment
    const left = Date.parse(short.expires_at) - Date.parse((await shop.get(`/test_clock`)).body.data.now);
    await shop.advance(Math.ceil((left - 100_000) / 1000));
    const late = await shop.postOnce('/checkouts', { payment_code: code, asset: 'USDC', network: 'ethereum', replaces: first.id });
    expect([late.status, late.body.error?.code]).toEqual([409, 'payment_paid']);
    expect((await shop.get(`/checkouts/${first.id}`)).body.data.status).toBe('awaiting_customer');
  });

  it('M2: a transfer on another network counts on the checkout (received_amount, not "0") as on the payment and the receipt, in review and once accepted; on a short quote the rest on another network too', async () => {
    const shop = await shopNamed('M2 wrong network');
    const payment = await shop.createPayment();
    const checkout = await shop.openCheckout(payment);
    expect(await shop.markSent(checkout.id, 'wrong_network')).toMatchObject({ status: 'needs_review', crypto: { received_amount: '100', remaining_amount: null, detected_network: 'polygon' } });
    const receiptOf = async (id: string) => (await shop.as(null).get(`/public/receipts/${id}`)).body.data;
    expect((await shop.payment(payment.id)).method.amount).toBe('100');
    expect((await receiptOf(payment.id)).received_amount).toBe('100');
    const accepted = await shop.post(`/payments/${payment.id}/accept`);
    expect(accepted.body.data).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    const completed = (await shop.get(`/checkouts/${checkout.id}`)).body.data;
    expect(completed).toMatchObject({ status: 'completed', crypto: { received_amount: '100', remaining_amount: null, overpaid_amount: null, detected_network: 'polygon' } });

    // 90 on the quoted network, then the rest (10) on polygon: the checkout received 100, not 90
    const short = await shop.createPayment();
    const quote = await shop.openCheckout(short);
    await shop.markSent(quote.id, 'underpaid');
    await shop.advance(30);
    expect(await shop.markSent(quote.id, 'wrong_network')).toMatchObject({ status: 'needs_review', crypto: { received_amount: '100', remaining_amount: null, remaining_payment_uri: null } });
    expect((await shop.payment(short.id)).method.amount).toBe('100');
    const receipt = await receiptOf(short.id);
    expect([receipt.received_amount, receipt.transfers.map((t: { network: string; amount: string }) => [t.network, t.amount])]).toEqual(['100', [['ethereum', '90'], ['polygon', '10']]]);
  });

  it('M1 (api audit): USDC to an ethereum quote arriving on polygon is final at polygon\'s 32 confirmations, not the quote\'s 4 — on the checkout while it is the transfer shown and in the timeline; the quoted network\'s transfers keep 4', async () => {
    const shop = await shopNamed('M1 own network');
    const confirmationsOf = async (paymentId: string) =>
      (await shop.payment(paymentId)).events.filter((e: { type: string }) => e.type === 'confirmation').map((e: { data: { current: number; required: number } }) => [e.data.current, e.data.required]);
    const payment = await shop.createPayment();
    const checkout = await shop.openCheckout(payment);
    expect(checkout.confirmations).toEqual({ current: 0, required: 4 });
    expect(await shop.markSent(checkout.id, 'wrong_network')).toMatchObject({ status: 'needs_review', review_reason: 'wrong_network', crypto: { detected_network: 'polygon' }, confirmations: { current: 0, required: 32 } });
    await shop.advance(60); // a simulated block every 3 s on every network: 20 of them
    expect((await shop.get(`/checkouts/${checkout.id}`)).body.data.confirmations).toEqual({ current: 20, required: 32 });
    expect(await confirmationsOf(payment.id)).toEqual(Array.from({ length: 20 }, (_, i) => [i + 1, 32]));
    await shop.advance(60); // 120 s in all: past polygon's 32 blocks (96 s), and no further
    expect((await shop.get(`/checkouts/${checkout.id}`)).body.data).toMatchObject({ status: 'needs_review', confirmations: { current: 32, required: 32 } });
    const inReview = await shop.payment(payment.id);
    expect(inReview.status).toBe('needs_review'); // the business decides, as before
    expect(await confirmationsOf(payment.id)).toEqual(Array.from({ length: 32 }, (_, i) => [i + 1, 32]));

    // the quoted network: 4 of 4, succeeded, as before
    const exact = await shop.createPayment();
    const quote = await shop.openCheckout(exact);
    expect(await shop.markSent(quote.id, 'exact')).toMatchObject({ status: 'confirming', confirmations: { current: 0, required: 4 } });
    await shop.advance(60);
    expect((await shop.get(`/checkouts/${quote.id}`)).body.data).toMatchObject({ status: 'completed', confirmations: { current: 4, required: 4 } });
    expect(await shop.payment(exact.id)).toMatchObject({ status: 'succeeded' });
    expect(await confirmationsOf(exact.id)).toEqual([1, 2, 3, 4].map((n) => [n, 4]));
  });

  it('L3 (api audit): paid through its remainder (overpaid), or by a claim on the remainder accepted → the first, expired quote asks for no more (remaining_amount and remaining_payment_uri null)', async () => {
    const shop = await shopNamed('L3 api first quote');
    const checkoutOf = (id: string) => shop.get(`/checkouts/${id}`).then((r) => r.body.data);
    /** $25.00: 22.5 of 25 USDC on the first quote, its quote ended, a remainder of 2.5 requested */
    const shortWithRemainder = async () => {
      const payment = await shop.createPayment({ amount: 2500 });
      const first = await shop.openCheckout(payment);
      await shop.markSent(first.id, 'underpaid');
      await shop.advance(30);
      await shop.advance(16 * 60);
      expect(await checkoutOf(first.id)).toMatchObject({ status: 'expired', crypto: { received_amount: '22.5', remaining_amount: '2.5' } });
      const requested = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
      expect(requested.status).toBe(201);
      return { payment, first, remainder: requested.body.data.checkout };
    };

    const paid = await shortWithRemainder();
    await shop.markSent(paid.remainder.id, 'overpaid');
    await shop.advance(30);
    expect(await shop.payment(paid.payment.id)).toMatchObject({ status: 'succeeded', amount_received: 2525 });
    const first = await eventually(() => checkoutOf(paid.first.id), (c) => c.crypto.remaining_amount === null, { what: 'the first quote no longer asking' });
    expect(first).toMatchObject({ status: 'expired', crypto: { received_amount: '22.5', remaining_amount: null, remaining_payment_uri: null } });

    const claimed = await shortWithRemainder();
    // the customer leaves the remainder's page (canceled before its simulated transfer), then claims to have paid it
    expect((await shop.as(null).post(`/checkouts/${claimed.remainder.id}/cancel`)).body.data).toMatchObject({ status: 'canceled' });
    expect((await shop.as(null).post(`/checkouts/${claimed.remainder.id}/claim`, { tx_hash: '0x' + '7c'.repeat(32) })).body.data).toMatchObject({ status: 'needs_review', review_reason: 'claimed' });
    expect((await shop.post(`/payments/${claimed.payment.id}/accept`)).body.data).toMatchObject({ status: 'succeeded' });
    const firstAccepted = await eventually(() => checkoutOf(claimed.first.id), (c) => c.crypto.remaining_amount === null, { what: 'the first quote no longer asking after the claim was accepted' });
    expect(firstAccepted).toMatchObject({ status: 'expired', crypto: { received_amount: '22.5', remaining_amount: null, remaining_payment_uri: null } });
    expect(await checkoutOf(claimed.remainder.id)).toMatchObject({ status: 'completed', crypto: { remaining_amount: null, remaining_payment_uri: null } });

    // the remainder itself paid short (2.25 of 2.5), then the payment accepted: the remainder completes with
    // what it has — it counted — not `failed` / `payment_succeeded` (recheck audit M1)
    const short = await shortWithRemainder();
    await shop.markSent(short.remainder.id, 'underpaid');
    await shop.advance(30);
    expect(await eventually(() => checkoutOf(short.remainder.id), (c) => c.status === 'awaiting_customer', { what: 'the remainder short' })).toMatchObject({ crypto: { received_amount: '2.25' } });
    expect((await shop.post(`/payments/${short.payment.id}/accept`)).body.data).toMatchObject({ status: 'succeeded', amount_received: 2475 });
    const remainderDone = await eventually(() => checkoutOf(short.remainder.id), (c) => c.status !== 'awaiting_customer', { what: 'the short remainder ended' });
    expect(remainderDone).toMatchObject({ status: 'completed', failure_code: null, crypto: { received_amount: '2.25', remaining_amount: null, remaining_payment_uri: null } });
  });

  it('L3: mark-sent underpaid on a remainder of one smallest unit → 400 invalid_request on simulate, nothing recorded (no "0" transfer, no underpaid entry); exact pays it', async () => {
    const shop = await shopNamed('L3 one unit');
    const payment = await shop.createPayment({ amount: 100 }); // $1.00: 1 USDC, 1,000,000 units
    let checkout = await shop.openCheckout(payment);
    const remainders: string[] = [];
    for (let round = 0; round < 7; round++) {
      if (round > 0) {
        const requested = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
        expect(requested.status).toBe(201);
        checkout = requested.body.data.checkout;
        remainders.push(checkout.crypto.amount);
      }
      if (round === 6) break;
      await shop.markSent(checkout.id, 'underpaid'); // 90%, rounded down
      await shop.advance(30);
      await shop.advance(16 * 60);
    }
    expect(remainders).toEqual(['0.1', '0.01', '0.001', '0.0001', '0.00001', '0.000001']);
    const before = await shop.payment(payment.id);

    const refused = await shop.post(`/checkouts/${checkout.id}/mark-sent`, { simulate: 'underpaid' });
    expect([refused.status, refused.body.error?.code, refused.body.error?.field]).toEqual([400, 'invalid_request', 'simulate']);
    const after = await shop.payment(payment.id);
    expect(after.events).toEqual(before.events);
    expect((await shop.get(`/checkouts/${checkout.id}`)).body.data).toMatchObject({ status: 'open', crypto: { received_amount: '0', tx_hash: null } });
    const receipt = (await shop.as(null).get(`/public/receipts/${payment.id}`)).body.data;
    expect(receipt.transfers.map((t: { amount: string }) => t.amount)).not.toContain('0');

    expect(await shop.markSent(checkout.id, 'exact')).toMatchObject({ status: 'confirming', crypto: { received_amount: '0.000001' } });
    await shop.advance(30);
    expect(await shop.payment(payment.id)).toMatchObject({ status: 'succeeded', amount_received: 100 });
  });

  it('the remainder wait runs 15 minutes from the short transfer, not its confirmation (§4, §8; outside audit pay F1; decision 0009, addendum 2026-11-30): mark-sent underpaid at T, the clock advanced exactly 15 minutes → request-remainder 201', async () => {
    const shop = await shopNamed('remainder wait from the transfer');
    const payment = await shop.createPayment();
    const checkout = await shop.openCheckout(payment, { asset: 'BTC', network: 'bitcoin' });
    const sent = await shop.markSent(checkout.id, 'underpaid');
    expect(sent).toMatchObject({ status: 'confirming' });
    const sentAt = Date.parse(sent.sent_at);
    const quoteEnd = new Date(sentAt + 15 * 60_000).toISOString();

    await shop.advance(60); // the short transfer confirmed seconds after it was sent
    const short = await eventually(() => shop.get(`/checkouts/${checkout.id}`).then((r) => r.body.data), (c) => c.status === 'awaiting_customer', { what: 'the short transfer confirmed' });
    expect(short.expires_at).toBe(quoteEnd);
    expect((await shop.payment(payment.id)).status).toBe('underpaid');
    const live = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect([live.status, live.body.error?.code, live.body.error?.quote_ends_at]).toEqual([409, 'remainder_unavailable', quoteEnd]);

    await shop.advance(15 * 60 - 60); // exactly 15 minutes after mark-sent in all
    const requested = await shop.postOnce(`/payments/${payment.id}/request-remainder`);
    expect(requested.status).toBe(201);
    expect(requested.body.data.checkout).toMatchObject({ remainder: true, status: 'open' });
    expect(await shop.get(`/checkouts/${checkout.id}`).then((r) => r.body.data)).toMatchObject({ status: 'expired', expires_at: quoteEnd });
  });
});
