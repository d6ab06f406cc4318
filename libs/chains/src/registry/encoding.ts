import { base58, bech32, bech32m } from '@scure/base';
import { getAddress } from 'viem/utils';

/**
 * The encodings the registry and its callers name, as thin calls into the kept libraries (the
 * hand-written codecs are gone, issue 11): EIP-55 from viem, base58 and Bech32 / Bech32m from
 * @scure/base. Bitcoin addresses are decoded whole by @scure/btc-signer in address.ts.
 */

/**
 * The EIP-55 form of a well-formed EVM address in any case (viem `getAddress`); throws on a
 * malformed one. A mixed-case input is re-cased, not checked: validate first (address.ts).
 */
export function toChecksumAddress(address: string): string {
  return getAddress(address);
}

/** Base58 (Bitcoin alphabet), as Solana keys and signatures use it; a leading zero byte is a '1'. */
export function base58Encode(bytes: Uint8Array): string {
  return base58.encode(bytes);
}

/** The bytes of base58 text; null when a character is outside the alphabet. */
export function base58Decode(text: string): Uint8Array | null {
  try {
    return base58.decode(text);
  } catch {
    return null;
  }
}

/** A segwit address: Bech32 for witness version 0, Bech32m above (BIP173, BIP350). */
export function encodeSegwitAddress(hrp: string, version: number, program: Uint8Array): string {
  const coder = version === 0 ? bech32 : bech32m;
  return coder.encode(hrp, [version, ...coder.toWords(program)]);
}
