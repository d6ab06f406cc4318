import { MoneyError } from './errors';

/**
 * The fiat currencies we accept and their ISO 4217 minor-unit exponents (cents = 2, yen = 0).
 * A payment's `amount` is an integer in minor units of its `currency` (spec §2).
 * Three-decimal currencies (KWD, BHD, ...) are not accepted.
 */
export const FIAT = {
  USD: 2,
  EUR: 2,
  GBP: 2,
  CAD: 2,
  AUD: 2,
  CHF: 2,
  JPY: 0,
} as const satisfies Record<string, number>;

export type FiatCurrency = keyof typeof FIAT;

export function isFiatCurrency(currency: unknown): currency is FiatCurrency {
  return typeof currency === 'string' && Object.prototype.hasOwnProperty.call(FIAT, currency);
}

/** The minor-unit exponent of a currency we accept (upper-case ISO code), else `unsupported_currency`. */
export function fiatExponent(currency: string): number {
  if (!isFiatCurrency(currency)) {
    throw new MoneyError('unsupported_currency', `currency must be one of ${Object.keys(FIAT).join(', ')}`, 'currency');
  }
  return FIAT[currency];
}

/**
 * Minor units as a decimal string with the currency's every minor digit, no float: 2550 USD →
 * "25.50", 5000 JPY → "5000", 1234 KWD → "1.234". Throws `unsupported_currency` for another code.
 */
export function minorToDecimal(minor: number, currency: string): string {
  const exponent = fiatExponent(currency);
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const decimal = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return minor < 0 ? `-${decimal}` : decimal;
}

/**
 * Limits (spec §8), written in MAJOR units of the payment's own currency.
 *
 * The spec states them in dollars. Rule for the other currencies: the same numbers in major
 * units of the payment's currency (1 to 1,000,000 EUR, GBP, ...; ¥1 to ¥1,000,000), so in
 * minor units `min = 1 × 10^exponent`, `max = 1,000,000 × 10^exponent`. For USD, EUR, GBP, CAD,
 * AUD and CHF that is exactly 100 to 100,000,000 minor units. No exchange rate is involved, on
 * purpose: a limit that moved with a rate would make a valid payment invalid a minute later.
 */
export const PAYMENT_AMOUNT_MAJOR = { min: 1, max: 1_000_000 } as const;
export const CARD_PRICE_MAJOR = { min: 5, max: 10_000 } as const;

/** Bounds in minor units of `currency` for limits given in major units. */
export function minorBounds(
  currency: string,
  major: { readonly min: number; readonly max: number },
): { min: number; max: number } {
  const scale = 10 ** fiatExponent(currency); // exponent 0..2: exact integer
  return { min: major.min * scale, max: major.max * scale };
}

/**
 * A payment `amount`: whole minor units (a safe integer: 1.5, NaN, 2^53, strings and BigInts
 * are `invalid_amount`) between $1.00 and $1,000,000.00 inclusive (100 and 100,000,000 for USD;
 * other currencies by the rule above), else `amount_out_of_range`. Returns the amount.
 * No rounding: an amount with a fraction of a minor unit is refused, never rounded.
 */
export function validatePaymentAmount(amountMinor: number, currency: string, field = 'amount'): number {
  return checkWithin(amountMinor, currency, PAYMENT_AMOUNT_MAJOR, field, 'payment amount');
}

/** A card price: whole minor units between $5 and $10,000 inclusive (spec §7 amount_out_of_range). */
export function validateCardPrice(amountMinor: number, currency: string, field = 'amount'): number {
  return checkWithin(amountMinor, currency, CARD_PRICE_MAJOR, field, 'card price');
}

function checkWithin(
  amountMinor: number,
  currency: string,
  major: { readonly min: number; readonly max: number },
  field: string,
  what: string,
): number {
  if (typeof amountMinor !== 'number' || !Number.isSafeInteger(amountMinor)) {
    throw new MoneyError('invalid_amount', `${field} must be a whole number of minor units`, field);
  }
  const { min, max } = minorBounds(currency, major);
  if (amountMinor < min || amountMinor > max) {
    throw new MoneyError(
      'amount_out_of_range',
      `${what} must be between ${groupThousands(major.min)} and ${groupThousands(major.max)} ${currency} (${min} to ${max} minor units)`,
      field,
    );
  }
  return amountMinor;
}

function groupThousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
