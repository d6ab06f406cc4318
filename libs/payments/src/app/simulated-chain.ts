import { createHash, randomBytes } from 'node:crypto';
import { NetworkId, base58Encode, encodeSegwitAddress, family, toChecksumAddress } from '@lib/chains';
import { RATE_CURRENCIES } from '@lib/rates';

/**
 * The chain side of a simulated business (decision 0011): no chain is watched, so addresses and
 * transaction hashes only have to be well formed for their network and unique. A real wallet
 * (derivation from the business's keys) and real watchers replace this for live businesses.
 */

function digest(...parts: string[]): Buffer {
  return createHash('sha256').update(parts.join('|')).digest();
}

/**
 * The deposit address a checkout reserves: derived from the business and the checkout id, so
 * every checkout gets a fresh one and deriving it again (a retried reaction) gives the same.
 */
export function simulatedDepositAddress(businessId: string, checkoutId: string, network: NetworkId): string {
  const seed = digest('deposit', businessId, checkoutId);
  switch (family(network)) {
    case 'evm':
      return toChecksumAddress('0x' + seed.subarray(0, 20).toString('hex'));
    case 'solana':
      return base58Encode(seed);
    case 'bitcoin':
      return encodeSegwitAddress('bc', 0, seed.subarray(0, 20));
  }
}

/** A well-formed transaction hash for the network: from a seed (deterministic) or random. */
export function simulatedTxHash(network: NetworkId, seed?: string): string {
  const bytes = seed === undefined ? randomBytes(64) : Buffer.concat([digest('tx', seed), digest('tx2', seed)]);
  switch (family(network)) {
    case 'evm':
      return '0x' + bytes.subarray(0, 32).toString('hex');
    case 'bitcoin':
      return bytes.subarray(0, 32).toString('hex');
    case 'solana':
      return base58Encode(bytes.subarray(0, 64));
  }
}

/** The customer's sending address shown on a simulated transfer. */
export function simulatedSenderAddress(network: NetworkId, txHash: string): string {
  return simulatedDepositAddress('sender', txHash, network);
}

/** Spec §8: a simulated crypto checkout receives its transfer by itself 20 s after opening. */
export const SIMULATED_ARRIVAL_MS = 20_000;

/** One simulated block (a confirmation) every 3 s on every network (decision 0011). */
export const SIMULATED_BLOCK_MS = 3_000;

/** Currencies a payment can be priced in: those the rate table covers (libs/rates). */
export const PAYMENT_CURRENCIES: readonly string[] = RATE_CURRENCIES;
