import { MoneyError } from './errors';

/**
 * THE one place where money is rounded. Every division of an amount in this module goes through
 * `divide`, and says which direction it asked for:
 *
 * - `floor`   — toward zero (all operands are non-negative): never overstates a value.
 * - `ceil`    — away from zero: never understates what must be paid.
 * - `half_up` — to the nearest integer, an exact half going up (x.5 → x+1): fees, like Stripe.
 *
 * Operands are BigInt, so nothing overflows and nothing is a float.
 */
export type Rounding = 'floor' | 'ceil' | 'half_up';

/** `numerator / denominator` rounded as asked. `numerator >= 0`, `denominator > 0`. */
export function divide(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  if (numerator < 0n) throw new MoneyError('invalid_argument', 'cannot divide a negative amount');
  if (denominator <= 0n) throw new MoneyError('invalid_argument', 'divisor must be positive');
  const quotient = numerator / denominator; // BigInt division truncates: floor for n >= 0
  const remainder = numerator % denominator;
  if (remainder === 0n) return quotient;
  switch (rounding) {
    case 'floor':
      return quotient;
    case 'ceil':
      return quotient + 1n;
    case 'half_up':
      return 2n * remainder >= denominator ? quotient + 1n : quotient;
  }
}

/** 10^exponent as a BigInt. */
export function pow10(exponent: number): bigint {
  return 10n ** BigInt(exponent);
}
