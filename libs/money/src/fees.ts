import { Minor, minorToBigInt, minorToNumber } from './checks';
import { MoneyError } from './errors';
import { fiatExponent, FiatCurrency } from './fiat';
import { divide } from './rounding';

/**
 * Fees, and the `breakdown` (what the customer is asked to pay) and `reporting` (what the
 * business got) objects. All amounts are integer minor units of `currency`.
 *
 * Rounding: a fee is ROUNDED HALF UP to the nearest minor unit (like Stripe): x.5 → x+1,
 * x.49… → x. It is the only rounding here; everything else is exact integer sums.
 *
 * Formulas (bps = fee_rate_bps, 1 bps = 0.01%):
 *   fee(x)           = round_half_up(x × bps / 10,000)
 *
 *   breakdown.price          = payment amount P
 *   breakdown.processing_fee = fee(P) when the customer pays the fee, else null
 *   breakdown.network_fee    = null for crypto (the customer's wallet pays the chain itself);
 *                              for a card, the network fee passed in, else null
 *   breakdown.total          = P + (processing_fee ?? 0) + (network_fee ?? 0)
 *                              — the crypto quote is made for `total` (quoteCryptoAmount)
 *   payment.customer_fee     = breakdown.processing_fee ?? 0
 *
 *   reporting.amount          = A, the fiat value of everything that arrived, GROSS
 *                               (payment.amount_received, receivedValueMinor; includes the
 *                               customer's fee when the customer pays it)
 *   reporting.customer_fee    = customer pays: min(customer_fee, A); business pays: 0
 *   reporting.fee             = fee(A − reporting.customer_fee)   (the fee is on the price
 *                               part of what arrived: underpaid → less, overpaid → more)
 *   reporting.transaction_fee = the network fee the business bore, fiat (0 when simulated)
 *   reporting.net             = A − fee − transaction_fee
 *                               (business pays, exact payment: P − fee(P) − transaction_fee;
 *                                customer pays, exact payment: A = P + fee(P), so P − transaction_fee)
 *   `net` is not clamped: a network fee larger than the rest reports a negative net.
 */

export type FeePayer = 'business' | 'customer';
export type Rail = 'crypto' | 'card';

/** Basis points are an integer from 0 to 10,000 (100%). */
export function checkBps(bps: number, field = 'fee_rate_bps'): number {
  if (!Number.isSafeInteger(bps) || bps < 0 || bps > 10_000) {
    throw new MoneyError('invalid_argument', `${field} must be an integer from 0 to 10000`, field);
  }
  return bps;
}

function checkFeePayer(feePayer: FeePayer): FeePayer {
  if (feePayer !== 'business' && feePayer !== 'customer') {
    throw new MoneyError('invalid_argument', "fee_payer must be 'business' or 'customer'", 'fee_payer');
  }
  return feePayer;
}

/** fee = amount × bps / 10,000, ROUNDED HALF UP to a whole minor unit. */
export function feeFromBps(amountMinor: Minor, bps: number): number {
  const amount = minorToBigInt(amountMinor);
  return minorToNumber(divide(amount * BigInt(checkBps(bps)), 10_000n, 'half_up'), 'fee');
}

/** payment.customer_fee: fee(price) when the customer pays the fee, else 0. */
export function customerFeeFor(priceMinor: Minor, feeRateBps: number, feePayer: FeePayer): number {
  checkBps(feeRateBps);
  return checkFeePayer(feePayer) === 'customer' ? feeFromBps(priceMinor, feeRateBps) : 0;
}

export interface Breakdown {
  currency: FiatCurrency;
  price: number;
  processing_fee: number | null;
  network_fee: number | null;
  total: number;
}

/** A breakdown with its keys in the API's order, however it was stored (jsonb reorders keys). */
export function orderedBreakdown(b: Breakdown): Breakdown {
  return { currency: b.currency, price: b.price, processing_fee: b.processing_fee, network_fee: b.network_fee, total: b.total };
}

export function buildBreakdown(input: {
  currency: string;
  priceMinor: Minor;
  rail: Rail;
  feePayer: FeePayer;
  feeRateBps: number;
  /** Card only; a crypto breakdown refuses one (the customer's wallet pays the chain). */
  networkFeeMinor?: Minor | null;
}): Breakdown {
  fiatExponent(input.currency);
  const price = minorToBigInt(input.priceMinor, 'price');
  if (input.rail !== 'crypto' && input.rail !== 'card') {
    throw new MoneyError('invalid_argument', "rail must be 'crypto' or 'card'", 'rail');
  }
  const customerFee = customerFeeFor(price, input.feeRateBps, input.feePayer);
  const processingFee = input.feePayer === 'customer' ? customerFee : null;
  const given = input.networkFeeMinor ?? null;
  if (input.rail === 'crypto' && given !== null) {
    throw new MoneyError('invalid_argument', 'a crypto breakdown has no network fee', 'network_fee');
  }
  const networkFee = given === null ? null : minorToBigInt(given, 'network_fee');
  const total = price + BigInt(processingFee ?? 0) + (networkFee ?? 0n);
  return {
    currency: input.currency as FiatCurrency,
    price: minorToNumber(price, 'price'),
    processing_fee: processingFee,
    network_fee: networkFee === null ? null : minorToNumber(networkFee, 'network_fee'),
    total: minorToNumber(total, 'total'),
  };
}

export interface Reporting {
  currency: FiatCurrency;
  amount: number;
  fee: number;
  transaction_fee: number;
  customer_fee: number;
  net: number;
}

/** A reporting object with its keys in the API's order, however it was stored (jsonb reorders keys). */
export function orderedReporting(r: Reporting): Reporting {
  return { currency: r.currency, amount: r.amount, fee: r.fee, transaction_fee: r.transaction_fee, customer_fee: r.customer_fee, net: r.net };
}

export function buildReporting(input: {
  currency: string;
  /** A: fiat value of what arrived (payment.amount_received), gross. */
  amountReceivedMinor: Minor;
  feeRateBps: number;
  /** Network fee the business bore, in fiat minor units; 0 for a simulated business. */
  transactionFeeMinor: Minor;
  /** payment.customer_fee; must be 0 when the business pays the fee. */
  customerFeeMinor: Minor;
  feePayer: FeePayer;
}): Reporting {
  fiatExponent(input.currency);
  checkBps(input.feeRateBps);
  const amount = minorToBigInt(input.amountReceivedMinor, 'amount');
  const transactionFee = minorToBigInt(input.transactionFeeMinor, 'transaction_fee');
  const customerFeeCharged = minorToBigInt(input.customerFeeMinor, 'customer_fee');
  if (checkFeePayer(input.feePayer) === 'business' && customerFeeCharged !== 0n) {
    throw new MoneyError('invalid_argument', 'customer_fee must be 0 when the business pays the fee', 'customer_fee');
  }
  const customerFee = customerFeeCharged < amount ? customerFeeCharged : amount;
  const fee = BigInt(feeFromBps(amount - customerFee, input.feeRateBps));
  return {
    currency: input.currency as FiatCurrency,
    amount: minorToNumber(amount, 'amount'),
    fee: minorToNumber(fee, 'fee'),
    transaction_fee: minorToNumber(transactionFee, 'transaction_fee'),
    customer_fee: minorToNumber(customerFee, 'customer_fee'),
    net: minorToNumber(amount - fee - transactionFee, 'net'),
  };
}
