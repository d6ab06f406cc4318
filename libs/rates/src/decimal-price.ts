import { divide, fiatExponent, pow10 } from '@lib/money';

/**
 * Prices from a source, exactly: a decimal string is read as the fraction `units / 10^scale`
 * (BigInt, never a float), and turned into the integer rate a quote uses — minor units of the
 * currency per whole coin — by one division through @lib/money's `divide`, ROUNDED HALF UP to the
 * nearest minor unit (decision 0020). A rate is a price, not an amount owed: rounding it to the
 * nearest unit favours neither side (the coin amount the customer owes is then rounded UP by
 * quoteCryptoAmount, decision 0007). Rounding down in the business's favour was rejected: on a
 * stablecoin at 0.9999 it would ask the customer for 1% more.
 */

/** `units / 10^scale`, both non-negative. */
export interface DecimalPrice {
  units: bigint;
  scale: number;
}

/** A plain decimal: digits, an optional fraction; no sign, exponent, spaces or separators. */
const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;
/** Longer strings are refused before any BigInt is built (a price has far fewer digits). */
const MAX_LENGTH = 40;

/** The exact value of a decimal string, or null when it is not one (`"1e5"`, `"-3"`, `".5"`, `" 1"`, a number, …). */
export function parseDecimalPrice(text: unknown): DecimalPrice | null {
  if (typeof text !== 'string' || text.length > MAX_LENGTH) return null;
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const fraction = match[2] ?? '';
  return { units: BigInt(match[1] + fraction), scale: fraction.length };
}

/**
 * Minor units of `currency` per coin for a price in major units (USD 60123.456 → 6012346):
 * `round_half_up(units × 10^exponent / 10^scale)`. Null when the result is not a positive safe
 * integer (a price that rounds to zero cannot be quoted from).
 */
export function priceToMinor(price: DecimalPrice, currency: string): number | null {
  return safePositive(divide(price.units * pow10(fiatExponent(currency)), pow10(price.scale), 'half_up'));
}

/**
 * Minor units of `currency` per coin for a cross rate `numerator / denominator` (both prices of a
 * third coin, in `currency` and in the coin's own reference currency): one division, rounded half
 * up. Null when the denominator is zero or the result is not a positive safe integer.
 */
export function crossToMinor(numerator: DecimalPrice, denominator: DecimalPrice, currency: string): number | null {
  if (denominator.units === 0n) return null;
  const top = numerator.units * pow10(denominator.scale) * pow10(fiatExponent(currency));
  const bottom = denominator.units * pow10(numerator.scale);
  return safePositive(divide(top, bottom, 'half_up'));
}

/** One whole unit of the currency in minor units (a stablecoin at par: USD → 100). */
export function parMinor(currency: string): number {
  return Number(pow10(fiatExponent(currency)));
}

function safePositive(value: bigint): number | null {
  return value >= 1n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
}

/** ISO 8601 UTC with an optional fraction of any length, as exchanges write it (`2015-11-14T20:46:03.511254Z`). */
const ISO_UTC = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/;

/** Milliseconds since the epoch of an ISO UTC time (fraction cut to milliseconds), or null when it is not one or not a real date. */
export function parseIsoTime(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const match = ISO_UTC.exec(text);
  if (!match) return null;
  const ms = Date.parse(`${match[1]}.${(match[2] ?? '').padEnd(3, '0').slice(0, 3)}Z`);
  // Date.parse rolls over impossible dates (02-30 → 03-02): the round trip catches them
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 19) !== match[1]) return null;
  return ms;
}
