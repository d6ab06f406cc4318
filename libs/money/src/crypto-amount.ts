import { checkDecimals, checkUnits, MAX_CRYPTO_UNITS } from './checks';
import { MoneyError } from './errors';
import { pow10 } from './rounding';

/**
 * Crypto amounts on the wire are decimal strings in the coin (spec: "decimal strings on the
 * wire"); inside they are BigInt counts of the coin's smallest unit. No rounding ever happens
 * here: a string with more decimals than the coin is refused, never rounded.
 *
 * Accepted (grammar `(0|[1-9][0-9]*)(\.[0-9]{1,decimals})?`):
 *   - ASCII digits only, one optional `.` followed by 1 to `decimals` digits;
 *   - trailing zeros in the fraction, as long as the count fits the coin ("10.50", "1.000000");
 *   - zero ("0", "0.00"): the parser is about form; callers that need a positive amount use
 *     `parsePositiveCryptoAmount`.
 * Refused (MoneyError `invalid_amount`): non-strings (a JSON number is a float), empty, any
 *   whitespace, signs ('-', '+'), exponents ('1e6'), '.5', '5.', leading zeros ('01', '00.5'),
 *   separators (',', '_'), hex, non-ASCII digits, more decimals than the coin (even zeros:
 *   '1.0000000' for a 6-decimal coin), a fraction on a 0-decimal coin, and values above
 *   2^256 − 1 smallest units.
 *
 * Emitted (canonical, `formatCryptoAmount`): the minimal form — no leading zeros, no trailing
 *   zeros in the fraction, no '.' when the fraction is zero, never an exponent: '0', '10',
 *   '10.5', '0.000001'.
 */

const MAX_TEXT_LENGTH = 128; // uint256 has 78 digits; + '.' + up to 36 decimals fits

const AMOUNT = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/** Parses a decimal string of a coin with `decimals` decimals into smallest units. Exact. */
export function parseCryptoAmount(text: string, decimals: number, field = 'amount'): bigint {
  checkDecimals(decimals);
  if (typeof text !== 'string') {
    throw new MoneyError('invalid_amount', `${field} must be a decimal string`, field);
  }
  if (text.length === 0 || text.length > MAX_TEXT_LENGTH) {
    throw new MoneyError('invalid_amount', `${field} must be a decimal string`, field);
  }
  const match = AMOUNT.exec(text);
  if (!match) {
    throw new MoneyError(
      'invalid_amount',
      `${field} must be a plain decimal such as 10.5 (digits, at most one point, no sign or exponent)`,
      field,
    );
  }
  const whole = match[1];
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    throw new MoneyError(
      'invalid_amount',
      decimals === 0
        ? `${field} must be a whole number: the coin has no decimals`
        : `${field} has more than ${decimals} decimals`,
      field,
    );
  }
  const units = BigInt(whole) * pow10(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  if (units > MAX_CRYPTO_UNITS) throw new MoneyError('invalid_amount', `${field} is too large`, field);
  return units;
}

/** `parseCryptoAmount` that also refuses zero. */
export function parsePositiveCryptoAmount(text: string, decimals: number, field = 'amount'): bigint {
  const units = parseCryptoAmount(text, decimals, field);
  if (units === 0n) throw new MoneyError('invalid_amount', `${field} must be greater than zero`, field);
  return units;
}

/** Smallest units → canonical decimal string (the inverse of parseCryptoAmount). Exact. */
export function formatCryptoAmount(units: bigint, decimals: number): string {
  checkDecimals(decimals);
  checkUnits(units);
  const digits = units.toString(); // BigInt#toString never uses an exponent
  if (decimals === 0) return digits;
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
