import { MoneyError } from './errors';

/** Fiat amounts in minor units: a JSON integer (`number`, a safe integer) or a BigInt. */
export type Minor = number | bigint;

/** Largest amount of a coin we represent: the EVM's uint256 ceiling, in smallest units. */
export const MAX_CRYPTO_UNITS = 2n ** 256n - 1n;

/** Coin decimals we accept: 0 (whole units) to 36 (USDC 6, USDT 6, BTC 8, SOL 9, ETH 18). */
export const MAX_DECIMALS = 36;

export function checkDecimals(decimals: number): void {
  if (!Number.isSafeInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
    throw new MoneyError('invalid_argument', `decimals must be an integer from 0 to ${MAX_DECIMALS}`, 'decimals');
  }
}

/** A coin amount in smallest units: a BigInt, 0 to MAX_CRYPTO_UNITS. Never a `number`. */
export function checkUnits(units: bigint, field = 'units'): bigint {
  if (typeof units !== 'bigint') {
    throw new MoneyError('invalid_argument', `${field} must be a BigInt of smallest coin units`, field);
  }
  if (units < 0n) throw new MoneyError('invalid_amount', `${field} must not be negative`, field);
  if (units > MAX_CRYPTO_UNITS) throw new MoneyError('invalid_amount', `${field} is too large`, field);
  return units;
}

/** A fiat amount in minor units as a BigInt: a non-negative safe integer or non-negative BigInt. */
export function minorToBigInt(value: Minor, field = 'amount'): bigint {
  if (typeof value === 'bigint') {
    if (value < 0n) throw new MoneyError('invalid_amount', `${field} must not be negative`, field);
    return value;
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new MoneyError('invalid_amount', `${field} must be a whole number of minor units`, field);
  }
  if (value < 0) throw new MoneyError('invalid_amount', `${field} must not be negative`, field);
  return BigInt(value);
}

/** A fiat amount back to a JSON integer; refuses what a `number` cannot hold exactly. */
export function minorToNumber(value: bigint, field = 'amount'): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new MoneyError('invalid_amount', `${field} is beyond a safe integer`, field);
  }
  return Number(value);
}

/** A rate: positive integer minor units of fiat per whole coin. */
export function rateToBigInt(rate: Minor, field = 'rate'): bigint {
  const valid = typeof rate === 'bigint' ? rate > 0n : typeof rate === 'number' && Number.isSafeInteger(rate) && rate > 0;
  if (!valid) throw new MoneyError('invalid_rate', `${field} must be a positive whole number of minor units per coin`, field);
  return BigInt(rate);
}
