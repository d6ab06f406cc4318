import { COINBASE_EXCHANGE_URL, Ticker, coinbaseRoute, isNotFoundBody, parseTicker, routeSource, tickerPath } from './coinbase-exchange';
import { crossToMinor, parMinor, priceToMinor } from './decimal-price';
import { RateQuote, RateSource, RatedCoin, RatesUnavailableError } from './rate-source';

export interface LiveRatesOptions {
  /** Base URL of the source (RATES_URL): Coinbase Exchange's public REST endpoint, or a stand-in serving its shape. */
  baseUrl?: string;
  /** Freshness bound (RATES_MAX_AGE_SECONDS): a price whose own time is older than this is never quoted from. */
  maxAgeMs: number;
  /** How long a fetched price is reused before the source is asked again (default: 10 s, or maxAgeMs if shorter). */
  refreshMs?: number;
  /** Time allowed for one request, answer included (default 5 s). */
  timeoutMs?: number;
  /** Wall clock (tests move it). */
  now?: () => number;
  /** The HTTP client (default: the global fetch). */
  fetch?: typeof fetch;
}

const USER_AGENT = 'payments-service (exchange rates)';
/** A ticker answer is a few hundred bytes; anything much larger is not one. */
const MAX_BODY_CHARS = 64 * 1024;

interface Cached {
  ticker: Ticker;
  fetchedAt: number;
}

/**
 * Live exchange rates from Coinbase Exchange's public ticker (decision 0020), for live
 * businesses. Per product:
 *
 * - a cache: a fetched price is reused for `refreshMs`, as long as its own time is within the
 *   freshness bound (`maxAgeMs`);
 * - one request in flight: callers that need a refresh while one is running wait for that one;
 * - a refresh that fails (unreachable, malformed) falls back to the cached price while it is still
 *   within the bound, and is refused past it; a price older than the bound is refused even when
 *   the source just sent it (`stale`): never a quote from an old price;
 * - prices are decimal strings turned into integer minor units exactly (decimal-price.ts).
 *
 * Pairs the route table does not list resolve null without a request, as does a product the
 * source answers 404 `{"message":"NotFound"}` for.
 */
export class LiveRates implements RateSource {
  private readonly baseUrl: string;
  private readonly maxAgeMs: number;
  private readonly refreshMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly fetch: typeof fetch;
  private readonly cache = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<Ticker | null>>();
  /** Requests sent to the source (tests and metrics read it). */
  requests = 0;

  constructor(options: LiveRatesOptions) {
    if (!(options.maxAgeMs > 0)) throw new RangeError('maxAgeMs must be positive');
    this.baseUrl = (options.baseUrl ?? COINBASE_EXCHANGE_URL).replace(/\/+$/, '');
    this.maxAgeMs = options.maxAgeMs;
    this.refreshMs = options.refreshMs ?? Math.min(10_000, options.maxAgeMs);
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  async quote(asset: RatedCoin, currency: string): Promise<RateQuote | null> {
    const route = coinbaseRoute(asset, currency);
    if (route === null) return null;
    const source = routeSource(route, asset, currency);
    switch (route.kind) {
      case 'par':
        return { rateMinorPerCoin: parMinor(currency), source, at: new Date(this.now()).toISOString() };
      case 'product': {
        const ticker = await this.price(route.product);
        if (ticker === null) return null;
        return { rateMinorPerCoin: this.rate(priceToMinor(ticker.price, currency), route.product), source, at: new Date(ticker.timeMs).toISOString() };
      }
      case 'cross': {
        const [numerator, denominator] = await Promise.all([this.price(route.numerator), this.price(route.denominator)]);
        if (numerator === null || denominator === null) return null;
        const rate = this.rate(crossToMinor(numerator.price, denominator.price, currency), `${route.numerator}/${route.denominator}`);
        // the cross is as old as its older price
        return { rateMinorPerCoin: rate, source, at: new Date(Math.min(numerator.timeMs, denominator.timeMs)).toISOString() };
      }
    }
  }

  private rate(minor: number | null, what: string): number {
    if (minor === null) throw new RatesUnavailableError('malformed', `${what}: the price is not a usable rate (zero after rounding, or too large).`);
    return minor;
  }

  /** A price of the product within the freshness bound, from the cache or the source; null when the source has no such product. */
  private async price(product: string): Promise<Ticker | null> {
    const cached = this.cache.get(product);
    if (cached && this.now() - cached.fetchedAt < this.refreshMs && this.withinBound(cached.ticker)) return cached.ticker;
    let fetched: Ticker | null;
    try {
      fetched = await this.refresh(product);
    } catch (error) {
      // no usable answer: a cached price still within the bound is as good as it was
      const kept = this.cache.get(product);
      if (kept && this.withinBound(kept.ticker)) return kept.ticker;
      throw error;
    }
    if (fetched === null) {
      this.cache.delete(product);
      return null;
    }
    const kept = this.cache.get(product);
    const newest = kept && kept.ticker.timeMs > fetched.timeMs ? kept.ticker : fetched;
    this.cache.set(product, { ticker: newest, fetchedAt: this.now() });
    if (!this.withinBound(newest)) {
      throw new RatesUnavailableError('stale', `${product}: the newest price is from ${new Date(newest.timeMs).toISOString()}, older than ${this.maxAgeMs / 1000} s.`);
    }
    return newest;
  }

  private withinBound(ticker: Ticker): boolean {
    return this.now() - ticker.timeMs <= this.maxAgeMs;
  }

  /** One request per product at a time: a caller arriving while one runs shares its answer. */
  private refresh(product: string): Promise<Ticker | null> {
    let pending = this.inFlight.get(product);
    if (pending === undefined) {
      pending = this.request(product).finally(() => this.inFlight.delete(product));
      this.inFlight.set(product, pending);
    }
    return pending;
  }

  private async request(product: string): Promise<Ticker | null> {
    const url = `${this.baseUrl}${tickerPath(product)}`;
    this.requests++;
    let status: number;
    let text: string;
    try {
      const response = await this.fetch(url, {
        headers: { accept: 'application/json', 'user-agent': USER_AGENT },
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      const why = nameOf(error) === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : describe(error);
      throw new RatesUnavailableError('unreachable', `${product}: ${why}.`);
    }
    if (status === 404) {
      if (isNotFoundBody(json(text))) return null;
      throw new RatesUnavailableError('malformed', `${product}: 404 without the source's NotFound body (is RATES_URL right?).`);
    }
    if (status !== 200) throw new RatesUnavailableError('unreachable', `${product}: the source answered ${status}.`);
    const ticker = text.length > MAX_BODY_CHARS ? null : parseTicker(product, json(text));
    if (ticker === null) throw new RatesUnavailableError('malformed', `${product}: the answer is not a ticker (a positive decimal price and an ISO time).`);
    if (ticker.timeMs - this.now() > this.maxAgeMs) throw new RatesUnavailableError('malformed', `${product}: the price's time ${new Date(ticker.timeMs).toISOString()} is in the future.`);
    return ticker;
  }
}

function json(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The error's name (a DOMException's too, whatever realm it comes from). */
function nameOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
}

function describe(error: unknown): string {
  const message = (e: unknown) => (typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string' ? (e as { message: string }).message : String(e));
  const cause = typeof error === 'object' && error !== null ? (error as { cause?: unknown }).cause : undefined;
  return cause === undefined ? message(error) : `${message(error)} (${message(cause)})`;
}
