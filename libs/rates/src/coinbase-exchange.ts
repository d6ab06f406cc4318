import type { RatedCoin } from './rate-source';
import { DecimalPrice, parseDecimalPrice, parseIsoTime } from './decimal-price';

/**
 * Coinbase Exchange's public market data (decision 0020): `GET {base}/products/{product}/ticker`,
 * no key, answers for one product (`BTC-USD`) with its last trade, best bid and ask:
 *
 *   200 {"ask":"60001.01","bid":"60000.99","volume":"8093.17","trade_id":712398123,
 *        "price":"60001.00","size":"0.0012","time":"2026-11-26T22:28:21.511254Z", …}
 *   404 {"message":"NotFound"}                      (no such product)
 *
 * Prices are decimal strings in the quote currency; `time` is the last trade's. The rate is the
 * last trade's `price` at its `time`: the price a trade was actually made at, with the time that
 * makes a stale price detectable (bid and ask carry no time of their own).
 */

/** The public REST endpoint (RATES_URL's default). */
export const COINBASE_EXCHANGE_URL = 'https://api.exchange.coinbase.com';

/** The `source` recorded with a quote: `coinbase-exchange:<how>`. */
export const COINBASE_SOURCE = 'coinbase-exchange';

/**
 * How one pair is priced:
 * - `product`: that product's last trade (`BTC-USD`);
 * - `par`: one unit of the currency per coin, by rule, no request (USDC in USD: Coinbase keeps USD
 *   and USDC as one balance and has no USDC-USD book);
 * - `cross`: numerator ÷ denominator, two products priced in the currency and in USD (USDC in EUR
 *   = BTC-EUR ÷ BTC-USD, USDC being a dollar by the rule above; the books are the deepest there are).
 */
export type CoinbaseRoute = { kind: 'product'; product: string } | { kind: 'par' } | { kind: 'cross'; numerator: string; denominator: string };

/**
 * The pairs the service quotes (the payment currencies × the coins), and POL-USD for the fee of a
 * Polygon send (a fee is valued in USD only; decision 0040, addendum of 2026-11-29); anything else
 * is not offered.
 */
const DIRECT: Readonly<Record<string, readonly RatedCoin[]>> = {
  USD: ['USDT', 'BTC', 'ETH', 'SOL', 'POL'],
  EUR: ['USDT', 'BTC', 'ETH', 'SOL'],
};

export function coinbaseRoute(asset: RatedCoin, currency: string): CoinbaseRoute | null {
  if (!Object.prototype.hasOwnProperty.call(DIRECT, currency)) return null;
  if (asset === 'USDC') return currency === 'USD' ? { kind: 'par' } : { kind: 'cross', numerator: `BTC-${currency}`, denominator: 'BTC-USD' };
  return DIRECT[currency].includes(asset) ? { kind: 'product', product: `${asset}-${currency}` } : null;
}

/** The `source` string of a route: which prices a quote came from. */
export function routeSource(route: CoinbaseRoute, asset: RatedCoin, currency: string): string {
  switch (route.kind) {
    case 'product':
      return `${COINBASE_SOURCE}:${route.product}`;
    case 'par':
      return `${COINBASE_SOURCE}:${asset}-${currency}=par`;
    case 'cross':
      return `${COINBASE_SOURCE}:${route.numerator}/${route.denominator}`;
  }
}

/** The path of a product's ticker, relative to the base URL. */
export function tickerPath(product: string): string {
  return `/products/${encodeURIComponent(product)}/ticker`;
}

/** What a ticker answer gives a quote: the last trade's price and when it was made. */
export interface Ticker {
  product: string;
  price: DecimalPrice;
  /** Milliseconds since the epoch. */
  timeMs: number;
}

/** The documented 200 body, checked; null when it is not in that shape (price a positive decimal string, time ISO UTC). */
export function parseTicker(product: string, body: unknown): Ticker | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { price, time } = body as Record<string, unknown>;
  const parsed = parseDecimalPrice(price);
  const timeMs = parseIsoTime(time);
  if (parsed === null || parsed.units === 0n || timeMs === null) return null;
  return { product, price: parsed, timeMs };
}

/** A 404 body saying the product does not exist (`{"message":"NotFound"}`), as opposed to some other 404 (a wrong base URL). */
export function isNotFoundBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && typeof (body as Record<string, unknown>).message === 'string' && /not ?found/i.test((body as Record<string, string>).message);
}
