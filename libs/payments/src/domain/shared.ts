import { AssetCode, NetworkId, assetOn, RegistryError } from '@lib/chains';
import { MoneyError, formatCryptoAmount, parseCryptoAmount } from '@lib/money';
import { PaymentDomainError } from './errors';

/** Rails a payment can be paid on (card: decision 0026). */
export type PaymentRail = 'crypto' | 'card';

/** Spec §8: the quote of an underpaid checkout stays live 15 minutes after the short transfer. */
export const REMAINDER_WAIT_MS = 15 * 60 * 1000;

/**
 * When a transfer was made, as its checkout records it (decision 0009, addendum 2026-11-30): its
 * block's time (`mined_at`) when the chain states one earlier than the service saw it — the time
 * its lateness is judged by (0025 addendum, 2026-11-29, lateness at mining) — else when it was
 * seen (`detected_at`, the checkout's `sent_at`). Null when neither is recorded (events stored before).
 */
export function transferTime(detectedAt: string | null | undefined, minedAt: string | null | undefined): string | null {
  if (minedAt && (!detectedAt || Date.parse(minedAt) < Date.parse(detectedAt))) return minedAt;
  return detectedAt ?? null;
}

/**
 * Where the quote of a short transfer ends (§4, §8 "15 minutes of quote after the short
 * transfer"; decision 0009, addendum 2026-11-30): the quote life after the latest transfer
 * counted (`transfers`, a time each; null — stored before transfers had one — counts as `now`,
 * the rule before), never before the quote's own end (`quoteEnd`). It may be past already when the
 * transfer took long to confirm: the quote has ended then.
 */
export function shortQuoteEnd(quoteEnd: string | null, transfers: Iterable<string | null>, quoteTtlMs: number, now: Date): string {
  let latest: number | null = null;
  for (const at of transfers) {
    const t = at === null ? now.getTime() : Date.parse(at);
    if (latest === null || t > latest) latest = t;
  }
  const end = new Date((latest ?? now.getTime()) + quoteTtlMs).toISOString();
  return quoteEnd === null ? end : laterOf(quoteEnd, end);
}

/**
 * How long at most a transaction seen in the mempool holds a checkout's quote and its payment's
 * expiry (decision 0023, addendum 2026-11-29): past this after it was seen, unmined, they end as
 * if it had not been seen (a transaction stuck at a low fee, or a watcher that never saw it leave).
 */
export const SIGHTING_HOLD_MS = 24 * 60 * 60 * 1000;

/** The context of one decision: the time comes in, never from a clock. */
export interface DecideContext {
  now: Date;
}

/** The asset on the network, the registry's asset_unavailable turned into a domain error. */
export function carried(asset: AssetCode, network: NetworkId): { decimals: number; minimumTransfer: number } {
  try {
    return assetOn(asset, network);
  } catch (error) {
    if (error instanceof RegistryError) throw new PaymentDomainError(error.code === 'asset_unavailable' ? 'asset_unavailable' : 'invalid_request', error.message, error.field);
    throw error;
  }
}

/** Money's refusals are an invalid_request on their field. */
export function money<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof MoneyError) throw new PaymentDomainError('invalid_request', error.message, error.field);
    throw error;
  }
}

export const fmt = (units: bigint, decimals: number): string => formatCryptoAmount(units, decimals);
export const parse = (text: string, decimals: number, field = 'amount'): bigint => money(() => parseCryptoAmount(text, decimals, field));

export function laterOf(a: string, b: string): string {
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
