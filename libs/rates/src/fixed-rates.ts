import type { AssetCode } from '@lib/chains';
import type { FeeCoin, RateQuote, RateSource, RatedCoin } from './rate-source';

/**
 * The fixed table simulated businesses quote from (decisions 0011, 0020), integer minor units of
 * the currency per whole coin. Stablecoins at par; the others at round, documented numbers so
 * tests and examples can be checked by hand. A fee coin (POL, Polygon's: 0.50 USD, a round figure
 * near its price of 2025–2026) is priced in USD only, for the fee of a wallet send (decision 0040,
 * addendum of 2026-11-29); checkouts quote the assets alone.
 */
export const FIXED_RATES: Readonly<Record<string, Readonly<Record<AssetCode, number> & Partial<Record<FeeCoin, number>>>>> = {
  USD: { USDC: 100, USDT: 100, BTC: 6_000_000, ETH: 300_000, SOL: 15_000, POL: 50 },
  EUR: { USDC: 92, USDT: 92, BTC: 5_520_000, ETH: 276_000, SOL: 13_800 },
};

/** Currencies a payment can be priced in: those the fixed table covers (the live source covers the same). */
export const RATE_CURRENCIES: readonly string[] = Object.keys(FIXED_RATES);

/** The fixed table as a RateSource: source `fixed`, `at` the time of quoting (a table has no price time). */
export class FixedRates implements RateSource {
  constructor(
    private readonly table: typeof FIXED_RATES = FIXED_RATES,
    private readonly now: () => number = Date.now,
  ) {}

  /** The table's rate, or null for a pair it does not list. Synchronous: no I/O. */
  rate(asset: RatedCoin, currency: string): number | null {
    return this.table[currency]?.[asset] ?? null;
  }

  quote(asset: RatedCoin, currency: string): Promise<RateQuote | null> {
    const rate = this.rate(asset, currency);
    return Promise.resolve(rate === null ? null : { rateMinorPerCoin: rate, source: 'fixed', at: new Date(this.now()).toISOString() });
  }
}
