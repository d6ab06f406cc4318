import { Refusal } from '@lib/domain';

/**
 * Why a money function refused its input. Pure: no HTTP or NestJS types; the API layer maps
 * the code (usually to 400 invalid_request with the `field` it knows, or 400
 * amount_out_of_range for a card price, spec §7).
 *
 * - `invalid_amount`: not a well-formed amount (wrong type, sign, exponent, fraction, more
 *   decimals than the coin, not a safe integer, above the ceiling).
 * - `amount_out_of_range`: well formed but outside the limits (payment $1.00–$1,000,000.00,
 *   card price $5–$10,000, spec §8).
 * - `unsupported_currency`: not a currency of the FIAT table.
 * - `invalid_rate`: an exchange rate that is not a positive integer (a bad rate feed).
 * - `invalid_argument`: the caller broke the contract (decimals, basis points, fee payer); a bug,
 *   never a customer's input.
 */
export type MoneyErrorCode =
  | 'invalid_amount'
  | 'amount_out_of_range'
  | 'unsupported_currency'
  | 'invalid_rate'
  | 'invalid_argument';

export class MoneyError extends Refusal<MoneyErrorCode> {
  override readonly name = 'MoneyError';
}
