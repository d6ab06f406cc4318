import type { AssetCode } from '@lib/chains';

/**
 * A coin the service prices though it is none of its assets: a network's fee coin it never
 * receives (Polygon's POL), priced in USD only, so a send's `network_fee_usd` can be valued
 * (decision 0040, addendum of 2026-11-29). No checkout quotes it (checkouts ask for assets).
 */
export type FeeCoin = 'POL';
export const FEE_COINS: readonly FeeCoin[] = ['POL'];
export const isFeeCoin = (symbol: string): symbol is FeeCoin => (FEE_COINS as readonly string[]).includes(symbol);

/** What a rate source prices: the service's assets, and the fee coins. */
export type RatedCoin = AssetCode | FeeCoin;

/**
 * Where checkouts get their exchange rates (decision 0020). One small port so that a source can
 * be replaced by another: the fixed table of simulated businesses, a live exchange, a test double.
 */
export interface RateSource {
  /**
   * The rate of one whole `asset` coin in `currency` (ISO code) as a quote may use it now: a
   * price within the source's freshness bound, never an older one.
   *
   * Resolves null when the source does not offer the pair (the checkout answers 400
   * asset_unavailable). Rejects with RatesUnavailableError when it offers it but has no fresh
   * price right now (unreachable, malformed answer, stale price, or no live source at all).
   */
  quote(asset: RatedCoin, currency: string): Promise<RateQuote | null>;
}

/** A rate a quote was made from: what checkouts lock and record. */
export interface RateQuote {
  /** Integer minor units of the currency per whole coin (the checkout's `rate.amount`). */
  rateMinorPerCoin: number;
  /** Which source and which of its prices (`fixed`, `coinbase-exchange:BTC-USD`, …). */
  source: string;
  /** ISO 8601 time of the price (the quoting time for a rule such as a fixed table or par). */
  at: string;
}

/**
 * Why a source has no fresh rate:
 * - `unreachable`: no usable answer — connection refused, timeout, an error status;
 * - `malformed`: it answered, but not in the documented shape (or with a price that cannot be a rate);
 * - `stale`: it answered with a price older than the freshness bound;
 * - `off`: the deployment runs without a live source (RATES_URL=off).
 */
export type RatesUnavailableReason = 'unreachable' | 'malformed' | 'stale' | 'off';

/** No fresh rate right now; the caller refuses to quote (never a quote from an old price). */
export class RatesUnavailableError extends Error {
  override readonly name = 'RatesUnavailableError';

  constructor(
    readonly reason: RatesUnavailableReason,
    message: string,
  ) {
    super(message);
  }

  /** True for the reasons where the upstream gave no usable answer (retrying the same request may succeed once it is back). */
  get upstreamFailed(): boolean {
    return this.reason === 'unreachable' || this.reason === 'malformed';
  }
}

/** The source of a deployment without a live one (RATES_URL=off): every pair is unavailable. */
export class NoLiveRates implements RateSource {
  quote(asset: RatedCoin, currency: string): Promise<RateQuote | null> {
    return Promise.reject(new RatesUnavailableError('off', `No live exchange-rate source is configured: ${asset} cannot be quoted in ${currency}.`));
  }
}
