import { LiveRates, LiveRatesOptions, RatesUnavailableError } from '@lib/rates';
import { TickerServer, startTickerServer } from './ticker-server';

/**
 * LiveRates against a real local HTTP server serving Coinbase Exchange's documented ticker shape
 * (ticker-server.ts): fresh, stale, malformed, failing and silent answers; the cache, its
 * freshness bound and the one request in flight. The clock LiveRates reads is the test's, so the
 * bound is crossed without waiting.
 */
describe('LiveRates (Coinbase Exchange ticker on a local server)', () => {
  let server: TickerServer;
  let clock: number;
  const rates = (options: Partial<LiveRatesOptions> = {}) => new LiveRates({ baseUrl: server.url, maxAgeMs: 60_000, now: () => clock, timeoutMs: 2_000, ...options });
  const unavailable = async (promise: Promise<unknown>): Promise<RatesUnavailableError> => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RatesUnavailableError);
    return error as RatesUnavailableError;
  };

  beforeEach(async () => {
    server = await startTickerServer();
    clock = Date.now();
  });
  afterEach(() => server.close());

  it('a fresh price: exact integer minor units per coin, the product as source, the price time as at', async () => {
    server.set('BTC-USD', { kind: 'price', price: '60123.455', time: new Date(clock - 2_000).toISOString() });
    const quote = await rates().quote('BTC', 'USD');
    expect(quote).toEqual({ rateMinorPerCoin: 6_012_346, source: 'coinbase-exchange:BTC-USD', at: new Date(clock - 2_000).toISOString() });
    expect(server.requests('BTC-USD')).toBe(1);
  });

  it('reuses a fetched price for the refresh interval, then asks again', async () => {
    server.set('ETH-EUR', { kind: 'price', price: '2760.00' });
    const live = rates({ refreshMs: 10_000 });
    expect((await live.quote('ETH', 'EUR'))!.rateMinorPerCoin).toBe(276_000);
    server.set('ETH-EUR', { kind: 'price', price: '2800.00' });
    clock += 9_000;
    expect((await live.quote('ETH', 'EUR'))!.rateMinorPerCoin).toBe(276_000); // cached
    expect(server.requests('ETH-EUR')).toBe(1);
    clock += 1_000;
    expect((await live.quote('ETH', 'EUR'))!.rateMinorPerCoin).toBe(280_000); // refreshed
    expect(server.requests('ETH-EUR')).toBe(2);
  });

  it('one request in flight: callers needing the same refresh share it', async () => {
    server.set('SOL-USD', { kind: 'price', price: '150.00' });
    const live = rates();
    const quotes = await Promise.all(Array.from({ length: 8 }, () => live.quote('SOL', 'USD')));
    expect(quotes.map((q) => q!.rateMinorPerCoin)).toEqual(Array(8).fill(15_000));
    expect(server.requests('SOL-USD')).toBe(1);
    expect(live.requests).toBe(1);
  });

  it('refuses a stale price (older than the bound), even one the source just sent', async () => {
    server.set('BTC-USD', { kind: 'price', price: '60000.00', time: new Date(clock - 60_001).toISOString() });
    const error = await unavailable(rates().quote('BTC', 'USD'));
    expect(error.reason).toBe('stale');
    expect(error.upstreamFailed).toBe(false);
    // exactly at the bound is still fresh
    server.set('BTC-USD', { kind: 'price', price: '60000.00', time: new Date(clock - 60_000).toISOString() });
    await expect(rates().quote('BTC', 'USD')).resolves.toMatchObject({ rateMinorPerCoin: 6_000_000 });
  });

  it('a cached price is never quoted past the bound: it ages out, and a refresh that fails does not extend it', async () => {
    const priceTime = clock - 1_000;
    server.set('BTC-USD', { kind: 'price', price: '60000.00', time: new Date(priceTime).toISOString() });
    const live = rates({ maxAgeMs: 30_000, refreshMs: 10_000 });
    await live.quote('BTC', 'USD');
    server.set('BTC-USD', { kind: 'status', status: 500, body: '{"message":"Internal server error"}' });
    clock += 20_000; // refresh due and failing, the cached price (21 s old) still within 30 s: quoted
    await expect(live.quote('BTC', 'USD')).resolves.toEqual({ rateMinorPerCoin: 6_000_000, source: 'coinbase-exchange:BTC-USD', at: new Date(priceTime).toISOString() });
    clock = priceTime + 30_001; // past the bound: refused, as what the source failed with
    const error = await unavailable(live.quote('BTC', 'USD'));
    expect(error.reason).toBe('unreachable');
    expect(error.upstreamFailed).toBe(true);
    // the source answers the same old price again: stale, not quoted
    server.set('BTC-USD', { kind: 'price', price: '60000.00', time: new Date(priceTime).toISOString() });
    expect((await unavailable(live.quote('BTC', 'USD'))).reason).toBe('stale');
  });

  it('malformed answers are refused (never guessed at)', async () => {
    const documented = (fields: Record<string, unknown>) => JSON.stringify({ ask: '1', bid: '1', volume: '1', trade_id: 1, price: '60000.00', size: '1', time: new Date(clock).toISOString(), ...fields });
    const bodies: [string, string, string?][] = [
      ['price as a number', documented({ price: 60000 })],
      ['price with an exponent', documented({ price: '6e4' })],
      ['negative price', documented({ price: '-60000' })],
      ['zero price', documented({ price: '0.00' })],
      ['price that rounds to nothing', documented({ price: '0.004' })],
      ['no time', documented({ time: undefined })],
      ['time not ISO', documented({ time: 'Thu, 26 Nov 2026 22:28:21 GMT' })],
      ['time in the future', documented({ time: new Date(clock + 120_000).toISOString() })],
      ['not JSON', '<html><body>Bad gateway</body></html>', 'text/html'],
      ['an array', '[]'],
      ['truncated JSON', documented({}).slice(0, 40)],
    ];
    for (const [what, body, contentType] of bodies) {
      server.set('BTC-USD', { kind: 'status', status: 200, body, contentType });
      const error = await unavailable(rates().quote('BTC', 'USD'));
      expect([what, error.reason]).toEqual([what, 'malformed']);
    }
  });

  it('error statuses, a closed port and a silent server are unreachable', async () => {
    for (const status of [500, 502, 503, 429, 403]) {
      server.set('BTC-USD', { kind: 'status', status, body: '{"message":"error"}' });
      expect((await unavailable(rates().quote('BTC', 'USD'))).reason).toBe('unreachable');
    }
    server.set('BTC-USD', { kind: 'hang', delayMs: 10_000 });
    const started = Date.now();
    const timedOut = await unavailable(rates({ timeoutMs: 300 }).quote('BTC', 'USD'));
    expect(timedOut.reason).toBe('unreachable');
    expect(timedOut.message).toContain('no answer within 300 ms');
    expect(Date.now() - started).toBeLessThan(5_000);
    const closed = await startTickerServer();
    const url = closed.url;
    await closed.close();
    expect((await unavailable(new LiveRates({ baseUrl: url, maxAgeMs: 60_000 }).quote('BTC', 'USD'))).reason).toBe('unreachable');
  });

  it('a product the source does not have (404 NotFound) is not offered; another 404 is malformed; pairs off the table are never asked', async () => {
    await expect(rates().quote('ETH', 'USD')).resolves.toBeNull(); // unset: the server's NotFound body
    server.set('ETH-USD', { kind: 'status', status: 404, body: '<html>Not Found</html>', contentType: 'text/html' });
    expect((await unavailable(rates().quote('ETH', 'USD'))).reason).toBe('malformed');
    const before = server.requests();
    await expect(rates().quote('BTC', 'GBP')).resolves.toBeNull();
    expect(server.requests()).toBe(before);
  });

  it('USDC: par in USD without a request; in EUR the BTC-EUR ÷ BTC-USD cross, as old as its older price', async () => {
    await expect(rates().quote('USDC', 'USD')).resolves.toEqual({ rateMinorPerCoin: 100, source: 'coinbase-exchange:USDC-USD=par', at: new Date(clock).toISOString() });
    expect(server.requests()).toBe(0);
    server.set('BTC-EUR', { kind: 'price', price: '55200.00', time: new Date(clock - 5_000).toISOString() });
    server.set('BTC-USD', { kind: 'price', price: '60000.00', time: new Date(clock - 1_000).toISOString() });
    await expect(rates().quote('USDC', 'EUR')).resolves.toEqual({ rateMinorPerCoin: 92, source: 'coinbase-exchange:BTC-EUR/BTC-USD', at: new Date(clock - 5_000).toISOString() });
    server.set('BTC-EUR', { kind: 'price', price: '55200.00', time: new Date(clock - 61_000).toISOString() });
    expect((await unavailable(rates().quote('USDC', 'EUR'))).reason).toBe('stale');
  });

  it('a base URL with a path and a trailing slash', async () => {
    const prefixed = await startTickerServer('/exchange');
    try {
      prefixed.set('USDT-USD', { kind: 'price', price: '1.0004' });
      await expect(new LiveRates({ baseUrl: `${prefixed.url}/`, maxAgeMs: 60_000 }).quote('USDT', 'USD')).resolves.toMatchObject({ rateMinorPerCoin: 100, source: 'coinbase-exchange:USDT-USD' });
    } finally {
      await prefixed.close();
    }
  });
});
