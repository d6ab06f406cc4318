import { defaultRegistry } from '@lib/chains';
import { WalletSendRates } from '@lib/wallets';
import { TickerServer, startTickerServer } from '../../rates/ticker-server';

/**
 * The USD value of a send's fee (decision 0040, addendum of 2026-11-29, audit F3): priced in the
 * network's fee coin from the same sources as every coin — POL (Polygon's) too, which is no asset
 * of the service: the fixed table for a simulated business, the live source's POL-USD for a live
 * one; without a fresh price, null, as for ETH.
 */
describe('WalletSendRates: a send fee in USD cents, POL included', () => {
  let ticker: TickerServer;
  let live: WalletSendRates;
  const simulated = new WalletSendRates({ ratesUrl: null, ratesMaxAgeMs: 60_000 }, defaultRegistry);
  const POL = 10n ** 18n;

  beforeAll(async () => {
    ticker = await startTickerServer();
    live = new WalletSendRates({ ratesUrl: ticker.url, ratesMaxAgeMs: 60_000 }, defaultRegistry);
  });
  afterAll(async () => {
    await ticker?.close();
  });

  it('a simulated business: the fixed table (POL 0.50 USD, ETH 3000.00 USD), half up', async () => {
    // 65 000 gas × 1 000 gwei = 0.065 POL at 0.50 USD = 3.25 cents
    expect(await simulated.feeUsd(true, 'polygon', 65_000n * 1_000_000_000_000n)).toBe(3);
    expect(await simulated.feeUsd(true, 'polygon', POL)).toBe(50);
    // 21 000 gas × 2 gwei = 0.000042 ETH at 3000.00 USD = 12.6 cents (unchanged)
    expect(await simulated.feeUsd(true, 'ethereum', 42_000_000_000_000n)).toBe(13);
    expect(await simulated.feeUsd(true, 'solana', 5_000n)).toBe(0);
  });

  it('a live business: POL-USD asked of the live source the way ETH-USD is', async () => {
    ticker.set('POL-USD', { kind: 'price', price: '0.4123' });
    ticker.set('ETH-USD', { kind: 'price', price: '3012.50' });
    expect(await live.feeUsd(false, 'polygon', 2n * POL)).toBe(82); // 2 × 0.4123 USD = 82.46 cents
    expect(await live.feeUsd(false, 'ethereum', 10n ** 15n)).toBe(301); // 0.001 × 3012.50 USD = 301.25 cents
    expect([ticker.requests('POL-USD'), ticker.requests('ETH-USD')]).toEqual([1, 1]);
  });

  it('no fresh live price: null for POL, exactly as for ETH (a send is never refused for want of a rate)', async () => {
    const down = new WalletSendRates({ ratesUrl: ticker.url, ratesMaxAgeMs: 60_000 }, defaultRegistry);
    ticker.set('POL-USD', { kind: 'status', status: 503, body: 'unavailable' });
    ticker.set('ETH-USD', { kind: 'status', status: 503, body: 'unavailable' });
    expect([await down.feeUsd(false, 'polygon', POL), await down.feeUsd(false, 'ethereum', 10n ** 15n)]).toEqual([null, null]);
    ticker.set('POL-USD', { kind: 'price', price: '0.50', ageMs: 120_000 }); // stale
    ticker.set('ETH-USD', { kind: 'price', price: '3000.00', ageMs: 120_000 });
    expect([await down.feeUsd(false, 'polygon', POL), await down.feeUsd(false, 'ethereum', 10n ** 15n)]).toEqual([null, null]);
    const off = new WalletSendRates({ ratesUrl: null, ratesMaxAgeMs: 60_000 }, defaultRegistry);
    expect([await off.feeUsd(false, 'polygon', POL), await off.feeUsd(false, 'ethereum', 10n ** 15n)]).toEqual([null, null]);
  });
});
