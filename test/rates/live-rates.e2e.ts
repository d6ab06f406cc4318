import { randomUUID } from 'node:crypto';
import { EVENT_STORE, EventStore, LogPosition, SYSTEM_ACTOR } from '@lib/eventstore';
import { BusinessClock, PaymentStreams, PaymentsProcessManager } from '@lib/payments';
import { eventually } from '../support/eventually';
import { TestApi, appPerSuite, businessWithKey, startApp } from '../support/fixtures';
import { TickerServer, startTickerServer } from './ticker-server';
import { committedHead } from '../support/log-head';

/**
 * Live exchange rates end to end (decision 0020): the real app on the embedded store, its live
 * source pointed (RATES_URL) at a local server serving Coinbase Exchange's ticker shape.
 *
 * Stand-ins, because a live business has no chain watcher or test clock yet: the chain's reports
 * (a transfer detected, its confirmations) are the checkout commands a watcher sends, decided
 * through the app's own PaymentStreams and settled by its process manager; the 15 minutes an
 * underpaid quote stays live pass on the business's clock (BusinessClock.advance).
 */
const MAX_AGE_S = 3;

describe('live exchange rates over HTTP', () => {
  let server: TickerServer;
  const suite = appPerSuite(
    async () => {
      server = await startTickerServer();
      // live businesses are offered watched networks only: nodes are named (nothing listens there; the transfers here are fed in by hand)
      const nodes = { EVM_RPC_URL_ETHEREUM: 'http://127.0.0.1:9', BITCOIN_ESPLORA_URL: 'http://127.0.0.1:9', SOLANA_RPC_URL: 'http://127.0.0.1:9' };
      const api = await startApp('embedded', { TRUSTED_PROXIES: 'loopback', RATES_URL: server.url, RATES_MAX_AGE_SECONDS: String(MAX_AGE_S), ...nodes });
      return { ...api, close: async () => (await api.close(), await server.close()) };
    },
    async (api) => {
      const live = await businessWithKey(api, false);
      expect((await live.client.post('/wallet', { type: 'created' })).status).toBe(201); // a live business receives in its wallet
      return { live: live.client, liveId: live.business.id, sandbox: (await businessWithKey(api, true)).client };
    },
  );

  const code = (payment: { url: string }) => payment.url.split('/').pop()!;
  const types = (payment: { events: { type: string }[] }) => payment.events.map((e) => e.type);
  const store = (): EventStore => suite.api.app.get(EVENT_STORE);
  /** ceil(price × 10^decimals / rate), formatted: what the quote must ask for (decision 0007). */
  const coins = (priceMinor: number, rate: number, decimals: number) => {
    const units = (BigInt(priceMinor) * 10n ** BigInt(decimals) + BigInt(rate) - 1n) / BigInt(rate);
    const text = units.toString().padStart(decimals + 1, '0');
    return `${text.slice(0, -decimals)}.${text.slice(-decimals)}`.replace(/\.?0+$/, '');
  };
  /** Events appended after `head` that concern the payment (its own stream, or a checkout of it). */
  const appendedFor = async (head: LogPosition | null, paymentId: string) =>
    (await store().readAll({ after: head })).filter((e) => e.stream === `payment-${paymentId}` || (e.data as { payment_id?: string })?.payment_id === paymentId).map((e) => e.type);

  it("a live business's checkout is quoted from the live source and records which price and when", async () => {
    server.set('BTC-USD', { kind: 'price', price: '60123.45', ageMs: 500 });
    const payment = await suite.live.createPayment({ amount: 10_000, currency: 'USD' });
    const checkout = await suite.live.openCheckout(payment, { asset: 'BTC', network: 'bitcoin' });
    const at = new Date(server.lastPriceTime('BTC-USD')!).toISOString();
    expect(checkout.crypto).toMatchObject({ asset: 'BTC', network: 'bitcoin', amount: coins(10_000, 6_012_345, 8), rate: { amount: 6_012_345, currency: 'USD', source: 'coinbase-exchange:BTC-USD', at } });
    // the read model has it too, and the stored event names the price
    expect((await suite.live.as(null).get(`/checkouts/${checkout.id}`)).body.data.crypto.rate).toEqual({ amount: 6_012_345, currency: 'USD', source: 'coinbase-exchange:BTC-USD', at });
    const [opened] = await store().readStream(`checkout-${checkout.id}`, { maxCount: 1 });
    expect(opened.data).toMatchObject({ rate: { amount: 6_012_345, currency: 'USD', source: 'coinbase-exchange:BTC-USD', at } });
  });

  it('a simulated business still quotes from the fixed table, without asking the source', async () => {
    const before = server.requests();
    const payment = await suite.sandbox.createPayment({ amount: 10_000, currency: 'USD' });
    const checkout = await suite.sandbox.openCheckout(payment, { asset: 'BTC', network: 'bitcoin' });
    expect(checkout.crypto.rate).toEqual({ amount: 6_000_000, currency: 'USD', source: 'fixed', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect(checkout.crypto.amount).toBe(coins(10_000, 6_000_000, 8));
    expect(server.requests()).toBe(before);
  });

  it('a stale, failing or malformed source: 503 temporarily_unavailable and nothing appended; the same key works once a fresh price is back', async () => {
    const payment = await suite.live.createPayment({ amount: 2_500, currency: 'USD' });
    const head = await committedHead(store());
    const key = randomUUID();
    const open = () => suite.live.post('/checkouts', { payment_code: code(payment), asset: 'ETH', network: 'ethereum' }, { 'idempotency-key': key });
    const refusals: [string, Parameters<TickerServer['set']>[1]][] = [
      ['stale', { kind: 'price', price: '3000.00', ageMs: 30_000 }],
      ['failing', { kind: 'status', status: 500, body: '{"message":"Internal server error"}' }],
      ['malformed', { kind: 'status', status: 200, body: '<html>maintenance</html>', contentType: 'text/html' }],
    ];
    for (const [what, behaviour] of refusals) {
      server.set('ETH-USD', behaviour);
      const answer = await open();
      expect([what, answer.status, answer.body.error?.code]).toEqual([what, 503, 'temporarily_unavailable']);
    }
    expect(await appendedFor(head, payment.id)).toEqual([]);
    const read = await suite.live.payment(payment.id);
    expect(read.checkout_id).toBeNull();
    expect(types(read)).toEqual(['created']);

    server.set('ETH-USD', { kind: 'price', price: '3000.00' });
    const opened = await open();
    expect(opened.status).toBe(201);
    expect(opened.body.data.crypto.rate).toMatchObject({ amount: 300_000, source: 'coinbase-exchange:ETH-USD' });
  });

  it('a pair the source does not have is 400 asset_unavailable', async () => {
    const payment = await suite.live.createPayment({ amount: 2_500, currency: 'EUR' });
    const answer = await suite.live.postOnce('/checkouts', { payment_code: code(payment), asset: 'SOL', network: 'solana' }); // SOL-EUR unset: 404 NotFound
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'asset_unavailable', field: 'asset' });
  });

  it('request-remainder quotes afresh: an unreachable source is 503 upstream_unavailable with nothing changed, a stale one temporarily_unavailable, and the same key succeeds once the source is back', async () => {
    server.set('BTC-EUR', { kind: 'price', price: '55000.00' });
    const payment = await suite.live.createPayment({ amount: 10_000, currency: 'EUR' });
    const checkout = await suite.live.openCheckout(payment, { asset: 'BTC', network: 'bitcoin' });
    expect(checkout.crypto).toMatchObject({ amount: '0.00181819', rate: { amount: 5_500_000, source: 'coinbase-exchange:BTC-EUR' } });

    // the chain (stand-in): half arrives and confirms → underpaid, worth floor(90909 × 55000.00 / 10^8) = €49.99
    await chainReports(suite.api, checkout.id, '0.00090909');
    const underpaid = await eventually(() => suite.live.payment(payment.id), (p) => p.status === 'underpaid', { what: 'payment underpaid' });
    expect(underpaid.amount_received).toBe(4_999);
    const asked = server.requests('BTC-EUR');
    const early = await suite.live.postOnce(`/payments/${payment.id}/request-remainder`);
    expect(early.body.error.code).toBe('remainder_unavailable'); // the quote is live: no source asked
    expect(server.requests('BTC-EUR')).toBe(asked);
    await suite.api.app.get(BusinessClock).advance(suite.liveId, 16 * 60); // the 15 minutes (stand-in)

    // the cached price ages past the bound (a few seconds of wall time), and the source goes down
    const served = server.lastPriceTime('BTC-EUR')!;
    await eventually(() => Date.now() > served + MAX_AGE_S * 1000 + 50, { what: 'the cached price past the bound' });
    server.set('BTC-EUR', { kind: 'status', status: 502, body: '{"message":"Bad gateway"}' });
    const head = await committedHead(store());
    const key = randomUUID();
    const request = () => suite.live.post(`/payments/${payment.id}/request-remainder`, undefined, { 'idempotency-key': key });
    const unreachable = await request();
    expect(unreachable.status).toBe(503);
    expect(unreachable.body.error.code).toBe('upstream_unavailable');
    server.set('BTC-EUR', { kind: 'price', price: '55000.00', ageMs: 60_000 });
    const stale = await request();
    expect(stale.status).toBe(503);
    expect(stale.body.error.code).toBe('temporarily_unavailable');
    expect(await appendedFor(head, payment.id)).toEqual([]);
    expect(types(await suite.live.payment(payment.id))).not.toContain('remainder_requested');

    // back, at another price: the €50.01 left is quoted afresh at €50,000.00 (rounded up: 0.0010002 BTC)
    server.set('BTC-EUR', { kind: 'price', price: '50000.00' });
    const requested = await request();
    expect(requested.status).toBe(201);
    const at = new Date(server.lastPriceTime('BTC-EUR')!).toISOString();
    const remainder = requested.body.data.checkout;
    expect(remainder).toMatchObject({ remainder: true, status: 'open', amount: 5_001, currency: 'EUR' });
    expect(remainder.crypto).toMatchObject({ asset: 'BTC', network: 'bitcoin', amount: coins(5_001, 5_000_000, 8), rate: { amount: 5_000_000, currency: 'EUR', source: 'coinbase-exchange:BTC-EUR', at } });
    expect(requested.body.data.payment.events.find((e: { type: string }) => e.type === 'remainder_requested').data).toEqual({ checkout_id: remainder.id, amount: 5_001, currency: 'EUR' });
    const replay = await request();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.checkout.id).toBe(remainder.id);

    // the remainder arrives in full: the payment succeeds with the whole price received
    await chainReports(suite.api, remainder.id, remainder.crypto.amount);
    const done = await eventually(() => suite.live.payment(payment.id), (p) => p.status === 'succeeded', { what: 'payment succeeded' });
    expect(done.amount_received).toBe(10_000);
    expect(types(done)).toContain('remainder_paid');
  });
});

/** A chain watcher's reports (stand-in): the transfer detected on the checkout's network, then all its confirmations. */
async function chainReports(api: TestApi, checkoutId: string, amount: string): Promise<void> {
  const streams = api.app.get(PaymentStreams);
  const process = api.app.get(PaymentsProcessManager);
  const checkout = await streams.checkout(checkoutId);
  if (checkout.status === 'none' || checkout.businessId === null || checkout.rail !== 'crypto') throw new Error(`no crypto checkout ${checkoutId}`);
  const options = { now: await api.app.get(BusinessClock).now(checkout.businessId), metadata: { actor: SYSTEM_ACTOR } };
  const txHash = randomUUID().replace(/-/g, '').repeat(2); // 64 hex: a bitcoin txid
  const detected = await streams.decideCheckout(checkoutId, { type: 'DetectTransfer', txHash, network: checkout.network, amount }, options);
  await process.settle(detected.appended);
  const confirmed = await streams.decideCheckout(checkoutId, { type: 'RecordConfirmations', txHash, current: checkout.confirmations.required }, options);
  await process.settle(confirmed.appended);
}
