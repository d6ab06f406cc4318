import { Address, NETWORK } from '@scure/btc-signer';
import { isAddress } from 'viem/utils';
import { base58Decode, toChecksumAddress } from './encoding';
import type { BitcoinAddressType, NetworkFamily } from './types';

/**
 * Address and transaction-hash formats per network family. Format only: a valid address may
 * still be one nobody holds the key to, and a valid hash may name no transaction (spec §4: the
 * service does not verify a claim's hash).
 */

/**
 * EVM: 0x + 40 hex, lower case, upper case, or mixed case with a correct EIP-55 checksum. viem's
 * strict `isAddress` takes all-lower as carrying no checksum but refuses all-upper, which EIP-55
 * also leaves unchecked, so the all-upper case is let through here first.
 */
export function isValidEvmAddress(address: string): boolean {
  if (!isAddress(address, { strict: false })) return false;
  const hex = address.slice(2);
  return hex === hex.toUpperCase() || isAddress(address, { strict: true });
}

/**
 * Solana: base58, 32 to 44 characters, decoding to exactly 32 bytes. Whether the key is on the
 * ed25519 curve is not checked: program-derived addresses (token accounts among them) are off
 * the curve and still hold funds.
 */
export function isValidSolanaAddress(address: string): boolean {
  if (address.length < 32 || address.length > 44) return false;
  return base58Decode(address)?.length === 32;
}

/** @scure/btc-signer's mainnet address coder (Base58Check and Bech32 / Bech32m by BIP173 and BIP350). */
const bitcoinMainnet = Address(NETWORK);

/**
 * The kind of a Bitcoin mainnet address, or null when it is not one the registry accepts:
 * - `1…` P2PKH and `3…` P2SH (Base58Check, 21-byte payload, version 0x00 / 0x05);
 * - `bc1q…` P2WPKH (20 bytes) and P2WSH (32 bytes): witness version 0, Bech32 (BIP173);
 * - `bc1p…` P2TR: witness version 1, 32 bytes, Bech32m (BIP350).
 * Upper-case Bech32 (as QR codes carry it) is accepted; mixed case is not. Other witness
 * versions and lengths are valid Bech32m but have no defined spending rules yet (coins sent
 * there can be taken by anyone), so they are refused as a payment or send address (btc-signer
 * refuses them as an unknown witness program). Testnet (`tb1…`, `m…`, `n…`, `2…`) is refused:
 * the network is mainnet. The P2TR key is not checked to be on the curve.
 */
export function bitcoinAddressType(address: string): BitcoinAddressType | null {
  let decoded: ReturnType<typeof bitcoinMainnet.decode>;
  try {
    decoded = bitcoinMainnet.decode(address);
  } catch {
    return null;
  }
  switch (decoded.type) {
    case 'pkh':
      return 'p2pkh';
    case 'sh':
      return 'p2sh';
    case 'wpkh':
      return 'p2wpkh';
    case 'wsh':
      return 'p2wsh';
    case 'tr':
      return 'p2tr';
    default:
      return null;
  }
}

export function isValidBitcoinAddress(address: string): boolean {
  return bitcoinAddressType(address) !== null;
}

export function isValidAddressForFamily(family: NetworkFamily, address: string): boolean {
  if (typeof address !== 'string') return false;
  switch (family) {
    case 'evm':
      return isValidEvmAddress(address);
    case 'solana':
      return isValidSolanaAddress(address);
    case 'bitcoin':
      return isValidBitcoinAddress(address);
  }
}

/**
 * The one spelling of a valid address: EIP-55 on EVM, lower case for Bech32, unchanged for
 * base58 (case-sensitive). Assumes the address is valid for the family.
 */
export function canonicalAddressForFamily(family: NetworkFamily, address: string): string {
  switch (family) {
    case 'evm':
      return toChecksumAddress(address);
    case 'solana':
      return address;
    case 'bitcoin':
      return address.slice(0, 3).toLowerCase() === 'bc1' ? address.toLowerCase() : address;
  }
}

const EVM_TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const BITCOIN_TXID = /^[0-9a-fA-F]{64}$/;

/**
 * Transaction hash formats: EVM 0x + 64 hex; Bitcoin txid 64 hex without 0x; Solana a
 * transaction signature, base58 decoding to 64 bytes (at most 88 characters).
 */
export function isValidTxHashForFamily(family: NetworkFamily, hash: string): boolean {
  if (typeof hash !== 'string') return false;
  switch (family) {
    case 'evm':
      return EVM_TX_HASH.test(hash);
    case 'bitcoin':
      return BITCOIN_TXID.test(hash);
    case 'solana':
      return hash.length >= 64 && hash.length <= 88 && base58Decode(hash)?.length === 64;
  }
}

/** The stored spelling of a valid hash: hex in lower case (spec §2), base58 unchanged. */
export function canonicalTxHashForFamily(family: NetworkFamily, hash: string): string {
  return family === 'solana' ? hash : hash.toLowerCase();
}
