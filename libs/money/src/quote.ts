import { checkDecimals, checkUnits, Minor, minorToBigInt, minorToNumber, rateToBigInt } from './checks';
import { MoneyError } from './errors';
import { divide, pow10 } from './rounding';

/**
 * Converting between fiat and coin. A rate is the checkout's `rate.amount`: integer minor units
 * of the fiat currency per ONE whole coin (BTC at $65,432.10 → 6543210; USDC at $1 → 100).
 * With `d` the coin's decimals, `u` smallest units are worth `u × rate / 10^d` minor units.
 *
 * Rounding (both through `divide`, the one place):
 *   - quote (fiat → coin): CEIL. The customer is asked for the smallest `u` whose value is at
 *     least the price, so the business never receives less than the price because of rounding.
 *   - value (coin → fiat): FLOOR. What a received amount is worth is never overstated.
 * Together, for every price p ≥ 1 and rate r ≥ 1 at the same rate:
 *   fiatValueOf(quote(p)) ≥ p   and   fiatValueOf(quote(p) − 1) < p.
 */

export interface QuoteInput {
  /** What the customer must pay, minor units of the fiat currency (breakdown `total`). */
  priceMinor: Minor;
  /** Minor units of the fiat currency per whole coin; positive. */
  rateMinorPerCoin: Minor;
  /** The coin's decimals (USDC 6, USDT 6, BTC 8, SOL 9, ETH 18). */
  decimals: number;
}

/**
 * Smallest coin units the customer must send for `priceMinor`:
 *   units = ceil(priceMinor × 10^decimals / rateMinorPerCoin)      — ROUNDS UP.
 * BigInt throughout: $1,000,000.00 in ETH (10^18) at a rate of 1 is 10^26 wei, no overflow.
 */
export function quoteCryptoAmount({ priceMinor, rateMinorPerCoin, decimals }: QuoteInput): bigint {
  checkDecimals(decimals);
  const price = minorToBigInt(priceMinor, 'price');
  if (price === 0n) throw new MoneyError('invalid_amount', 'price must be positive', 'price');
  const rate = rateToBigInt(rateMinorPerCoin);
  return checkUnits(divide(price * pow10(decimals), rate, 'ceil'), 'quote');
}

/**
 * What `units` smallest units are worth in minor units of the rate's currency:
 *   value = floor(units × rateMinorPerCoin / 10^decimals)          — ROUNDS DOWN.
 * Returns a JSON integer; refuses a value beyond a safe integer (≈ $90 trillion).
 */
export function fiatValueOf(units: bigint, rateMinorPerCoin: Minor, decimals: number): number {
  checkDecimals(decimals);
  checkUnits(units);
  const rate = rateToBigInt(rateMinorPerCoin);
  return minorToNumber(divide(units * rate, pow10(decimals), 'floor'), 'value');
}

/** What is still due: max(expected − received, 0) smallest units. Exact. */
export function remaining(expected: bigint, received: bigint): bigint {
  checkUnits(expected, 'expected');
  checkUnits(received, 'received');
  return received >= expected ? 0n : expected - received;
}

/** What was sent beyond the quote: max(received − expected, 0) smallest units. Exact. */
export function overpaid(expected: bigint, received: bigint): bigint {
  checkUnits(expected, 'expected');
  checkUnits(received, 'received');
  return received > expected ? received - expected : 0n;
}

/**
 * `payment.amount_received` for one quote: the fiat value of what arrived, in minor units.
 *   received ≥ expected: quotedMinor + fiatValueOf(received − expected)   (overpay floors)
 *   received < expected: fiatValueOf(received)                            (floors; < quotedMinor)
 * An exact payment is worth exactly the quoted amount (the quote's round-up cent is not
 * reported as extra money); an accepted claim, counted as the full quoted units, likewise.
 * `quotedMinor` is the amount the quote was made for (breakdown `total`), `expected` its units.
 */
export function receivedValueMinor(input: {
  quotedMinor: Minor;
  expected: bigint;
  received: bigint;
  rateMinorPerCoin: Minor;
  decimals: number;
}): number {
  const quoted = minorToBigInt(input.quotedMinor, 'quoted');
  checkUnits(input.expected, 'expected');
  checkUnits(input.received, 'received');
  if (input.received >= input.expected) {
    const extra = fiatValueOf(input.received - input.expected, input.rateMinorPerCoin, input.decimals);
    return minorToNumber(quoted + BigInt(extra), 'value');
  }
  return fiatValueOf(input.received, input.rateMinorPerCoin, input.decimals);
}

/** The simulator's short transfer (mark-sent `underpaid`, spec §4): 90% of the quote. */
export const SIMULATED_UNDERPAID_PERCENT = 90;
/** The simulator's long transfer (mark-sent `overpaid`, spec §4): 110% of the quote. */
export const SIMULATED_OVERPAID_PERCENT = 110;

/**
 * `percent`% of `units` (percent a non-negative integer), rounded AWAY FROM `units`:
 *   percent < 100: floor(units × percent / 100)   — ROUNDS DOWN
 *   percent > 100: ceil(units × percent / 100)    — ROUNDS UP
 *   percent = 100: units
 * So for units ≥ 1 the result is strictly below `units` under 100% and strictly above over
 * 100%: a simulated underpayment always underpays, an overpayment always overpays, even by
 * one smallest unit. (For units < 10, 90% floors to less than 0.9 × units; 1 unit gives 0.)
 */
export function percentOf(units: bigint, percent: number | bigint): bigint {
  checkUnits(units);
  const p = typeof percent === 'bigint' ? percent : Number.isSafeInteger(percent) ? BigInt(percent) : -1n;
  if (p < 0n) throw new MoneyError('invalid_argument', 'percent must be a non-negative integer', 'percent');
  if (p === 100n) return units;
  return checkUnits(divide(units * p, 100n, p < 100n ? 'floor' : 'ceil'));
}

/** 90% of the quote, rounded down: strictly less than `units` (units ≥ 1), and 0 for 1 unit (mark-sent refuses that: decision 0007 addendum). */
export function simulatedUnderpaid(units: bigint): bigint {
  return percentOf(units, SIMULATED_UNDERPAID_PERCENT);
}

/** 110% of the quote, rounded up: strictly more than `units` (units ≥ 1). */
export function simulatedOverpaid(units: bigint): bigint {
  return percentOf(units, SIMULATED_OVERPAID_PERCENT);
}
