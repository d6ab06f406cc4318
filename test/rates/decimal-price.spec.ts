import { coinbaseRoute, crossToMinor, parMinor, parseDecimalPrice, parseIsoTime, parseTicker, priceToMinor, routeSource, FixedRates, FIXED_RATES, RATE_CURRENCIES } from '@lib/rates';

/** Prices from a source, read exactly and rounded once, half up, to a minor unit (decision 0020). */
describe('decimal prices', () => {
  it('reads plain decimal strings exactly and refuses everything else', () => {
    expect(parseDecimalPrice('60123.45')).toEqual({ units: 6012345n, scale: 2 });
    expect(parseDecimalPrice('0.99990000')).toEqual({ units: 99990000n, scale: 8 });
    expect(parseDecimalPrice('3000')).toEqual({ units: 3000n, scale: 0 });
    expect(parseDecimalPrice('0')).toEqual({ units: 0n, scale: 0 });
    for (const bad of ['6e4', '-1', '+1', '.5', '5.', ' 1', '1 ', '1,000.00', '01.5', '0x10', '١٢', '', 'NaN', 'Infinity', '1'.repeat(41)]) {
      expect([bad, parseDecimalPrice(bad)]).toEqual([bad, null]);
    }
    for (const bad of [60000, null, undefined, {}, ['1']]) expect(parseDecimalPrice(bad)).toBeNull();
  });

  it('rounds half up to the nearest minor unit, with no float anywhere', () => {
    const minor = (text: string, currency = 'USD') => priceToMinor(parseDecimalPrice(text)!, currency);
    expect(minor('60123.455')).toBe(6_012_346); // exactly half: up
    expect(minor('60123.454999999999')).toBe(6_012_345); // just below half: down
    expect(minor('60123.4550000000001')).toBe(6_012_346);
    expect(minor('0.9995')).toBe(100); // a stablecoin a hair under par is quoted at par…
    expect(minor('0.9949')).toBe(99); // …and one clearly under is not
    expect(minor('1.005')).toBe(101); // a float would say 1.00499999… → 100
    expect(minor('3000')).toBe(300_000);
    expect(minor('0.1', 'EUR')).toBe(10);
    expect(minor('0.004')).toBeNull(); // rounds to zero: not a rate
    expect(minor('0')).toBeNull();
    expect(minor('90071992547409.91')).toBe(Number.MAX_SAFE_INTEGER); // 2^53 − 1 minor units still fits
    expect(minor('90071992547409.92')).toBeNull(); // one more does not
  });

  it('a cross rate is one division, rounded half up', () => {
    const p = (text: string) => parseDecimalPrice(text)!;
    expect(crossToMinor(p('55200.00'), p('60000.00'), 'EUR')).toBe(92); // 0.92 EUR per USD(C)
    expect(crossToMinor(p('55201.5'), p('60000'), 'EUR')).toBe(92); // 0.920025 → 92
    expect(crossToMinor(p('55500'), p('60000'), 'EUR')).toBe(93); // 0.925 exactly: up
    expect(crossToMinor(p('1'), p('0'), 'EUR')).toBeNull();
    expect(parMinor('USD')).toBe(100);
    expect(parMinor('JPY')).toBe(1);
  });

  it('reads ISO UTC times as exchanges write them (any fraction), refuses the rest', () => {
    expect(parseIsoTime('2026-11-26T22:28:21.511254Z')).toBe(Date.UTC(2026, 10, 26, 22, 28, 21, 511));
    expect(parseIsoTime('2026-11-26T22:28:21Z')).toBe(Date.UTC(2026, 10, 26, 22, 28, 21));
    expect(parseIsoTime('2026-11-26T22:28:21.5Z')).toBe(Date.UTC(2026, 10, 26, 22, 28, 21, 500));
    for (const bad of ['2026-02-30T00:00:00Z', '2026-11-26T22:28:21', '2026-11-26T22:28:21+00:00', '2026-11-26 22:28:21Z', 'yesterday', '', 1764196101000, null]) {
      expect(parseIsoTime(bad)).toBeNull();
    }
  });
});

describe('Coinbase Exchange shape', () => {
  const documented = { ask: '60001.01', bid: '60000.99', volume: '8093.17', trade_id: 712398123, price: '60001.00', size: '0.0012', time: '2026-11-26T22:28:21.511254Z', rfq_volume: '1.5' };

  it('takes the last trade price and its time from the documented body', () => {
    expect(parseTicker('BTC-USD', documented)).toEqual({ product: 'BTC-USD', price: { units: 6000100n, scale: 2 }, timeMs: Date.UTC(2026, 10, 26, 22, 28, 21, 511) });
  });

  it('refuses a body not in that shape', () => {
    for (const body of [null, [], 'x', { ...documented, price: 60001 }, { ...documented, price: '0' }, { ...documented, price: '6.0001e4' }, { ...documented, time: undefined }, { ...documented, time: 1764196101 }, { message: 'NotFound' }]) {
      expect(parseTicker('BTC-USD', body)).toBeNull();
    }
  });

  it('routes each pair: a product, par for USDC in USD, a cross through BTC for USDC in EUR; nothing else', () => {
    expect(coinbaseRoute('BTC', 'USD')).toEqual({ kind: 'product', product: 'BTC-USD' });
    expect(coinbaseRoute('USDT', 'EUR')).toEqual({ kind: 'product', product: 'USDT-EUR' });
    expect(coinbaseRoute('USDC', 'USD')).toEqual({ kind: 'par' });
    expect(coinbaseRoute('USDC', 'EUR')).toEqual({ kind: 'cross', numerator: 'BTC-EUR', denominator: 'BTC-USD' });
    // POL, Polygon's fee coin, for a send's fee in USD only (decision 0040, addendum of 2026-11-29)
    expect(coinbaseRoute('POL', 'USD')).toEqual({ kind: 'product', product: 'POL-USD' });
    expect(coinbaseRoute('POL', 'EUR')).toBeNull();
    expect(coinbaseRoute('BTC', 'GBP')).toBeNull();
    expect(coinbaseRoute('BTC', 'toString')).toBeNull();
    expect(routeSource(coinbaseRoute('USDC', 'EUR')!, 'USDC', 'EUR')).toBe('coinbase-exchange:BTC-EUR/BTC-USD');
    expect(routeSource(coinbaseRoute('USDC', 'USD')!, 'USDC', 'USD')).toBe('coinbase-exchange:USDC-USD=par');
    // every pair the fixed table quotes, the live source routes
    for (const currency of RATE_CURRENCIES) for (const asset of Object.keys(FIXED_RATES[currency])) expect(coinbaseRoute(asset as never, currency)).not.toBeNull();
  });
});

describe('FixedRates', () => {
  it('quotes the table with source "fixed" at the time of quoting; null off the table', async () => {
    const fixed = new FixedRates(undefined, () => Date.UTC(2026, 0, 2, 3, 4, 5));
    await expect(fixed.quote('BTC', 'USD')).resolves.toEqual({ rateMinorPerCoin: 6_000_000, source: 'fixed', at: '2026-01-02T03:04:05.000Z' });
    await expect(fixed.quote('USDC', 'EUR')).resolves.toMatchObject({ rateMinorPerCoin: 92, source: 'fixed' });
    await expect(fixed.quote('BTC', 'GBP')).resolves.toBeNull();
    expect(fixed.rate('ETH', 'USD')).toBe(300_000);
    // POL (Polygon's fee coin) in USD only, for a send's fee (decision 0040, addendum of 2026-11-29)
    expect([fixed.rate('POL', 'USD'), fixed.rate('POL', 'EUR')]).toEqual([50, null]);
  });
});
