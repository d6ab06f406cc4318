/**
 * Money: pure, dependency-free, BigInt for every coin amount, no floating point near an amount.
 *
 * Units. Fiat amounts are integers in minor units of their currency (FIAT: USD 2, JPY 0, ...),
 * carried as safe-integer `number`s (JSON integers) or BigInts. Coin amounts are BigInt counts
 * of the coin's smallest unit, decimal strings only on the wire.
 *
 * EVERY ROUNDING IN THE MODULE (all performed by `divide` in rounding.ts, the one place):
 *   | what                                   | function             | direction            |
 *   |----------------------------------------|----------------------|----------------------|
 *   | fiat price → coin units to send        | quoteCryptoAmount    | UP (ceil)            |
 *   | coin units → fiat value                | fiatValueOf          | DOWN (floor)         |
 *   | fiat value of an overpayment           | receivedValueMinor   | DOWN (floor)         |
 *   | percent of units, percent < 100 (90%)  | percentOf            | DOWN (floor)         |
 *   | percent of units, percent > 100 (110%) | percentOf            | UP (ceil)            |
 *   | fee from basis points                  | feeFromBps           | HALF UP (x.5 → x+1)  |
 * Never rounded, refused instead: decimal strings with more decimals than the coin
 * (parseCryptoAmount), fiat amounts with a fraction of a minor unit (validatePaymentAmount).
 * Exact: formatCryptoAmount, remaining, overpaid, breakdown totals, reporting net.
 */
export * from './checks';
export * from './crypto-amount';
export * from './errors';
export * from './fees';
export * from './fiat';
export * from './quote';
export { divide, pow10 } from './rounding';
export type { Rounding } from './rounding';
