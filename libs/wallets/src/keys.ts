import { createHash, pbkdf2Sync } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { base58 } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { generateMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { p2wpkh } from '@scure/btc-signer';
import { derivePath } from 'ed25519-hd-key';
import { bytesToHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { NetworkFamily } from '@lib/chains';

/**
 * A wallet's keys (issue 11, decision 0024): where every receiving address comes from. Only kept
 * libraries do the cryptography — @scure/bip39 (phrases), @scure/bip32 (BIP-32 extended keys),
 * @noble/curves (secp256k1, ed25519), viem (EVM addresses), @scure/btc-signer (native segwit),
 * ed25519-hd-key (SLIP-0010). Pure: no I/O.
 *
 * Paths (the conventions wallets use, so a phrase imported elsewhere shows the same funds):
 * - EVM: the account key m/44'/60'/0' (BIP-44); receiving address i is m/44'/60'/0'/0/i, derived
 *   from the account's PUBLIC key, so a wallet connected with an xpub derives them too.
 * - Bitcoin: the account key m/84'/0'/0' (BIP-84, native segwit); address i is m/84'/0'/0'/0/i.
 * - Solana: m/44'/501'/i'/0' (SLIP-0010, every level hardened: ed25519 has no public derivation),
 *   so only a wallet holding its phrase can make a fresh Solana address.
 */

export const EVM_ACCOUNT_PATH = "m/44'/60'/0'";
export const BITCOIN_ACCOUNT_PATH = "m/84'/0'/0'";
export const solanaPath = (index: number): string => `m/44'/501'/${index}'/0'`;

/** BIP-32 version bytes: xpub/xprv (BIP-32) and zpub/zprv (SLIP-0132, BIP-84 accounts). */
const XPUB_VERSIONS = { private: 0x0488ade4, public: 0x0488b21e };
const ZPUB_VERSIONS = { private: 0x04b2430c, public: 0x04b24746 };

/** Highest non-hardened child index (BIP-32). */
export const MAX_ADDRESS_INDEX = 0x7fffffff;

/** A new 24-word English recovery phrase (256 bits of entropy from the platform's CSPRNG). */
export function newRecoveryPhrase(): string {
  return generateMnemonic(wordlist, 256);
}

/** The phrase as stored and compared: words in lower case, single spaces; null when it is not a valid BIP-39 English phrase (checksum included). */
export function normalizePhrase(phrase: string): string | null {
  const words = phrase.normalize('NFKD').trim().toLowerCase().split(/\s+/);
  if (![12, 15, 18, 21, 24].includes(words.length)) return null;
  const normalized = words.join(' ');
  return validateMnemonic(normalized, wordlist) ? normalized : null;
}

/** The public keys a wallet that holds its phrase publishes in its events (never the phrase). */
export interface PhraseKeys {
  /** The EVM account's extended public key (xpub) at EVM_ACCOUNT_PATH. */
  evmXpub: string;
  /** The Bitcoin account's extended public key (zpub) at BITCOIN_ACCOUNT_PATH. */
  bitcoinXpub: string;
  /** The Solana address at index 0: what identifies the phrase on Solana (claims). */
  solanaAddress0: string;
}

/**
 * The BIP-39 seed of a phrase (no passphrase): PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic".
 * node:crypto's native PBKDF2 (about 1 ms) rather than @scure/bip39's JavaScript one (about 15 ms),
 * because a Solana checkout derives its address from the seed; the tests check both agree.
 */
export function phraseSeed(phrase: string): Uint8Array {
  return pbkdf2Sync(Buffer.from(phrase.normalize('NFKD'), 'utf8'), Buffer.from('mnemonic', 'utf8'), 2048, 64, 'sha512');
}

export function keysOfPhrase(phrase: string): PhraseKeys {
  const seed = phraseSeed(phrase);
  return {
    evmXpub: HDKey.fromMasterSeed(seed, XPUB_VERSIONS).derive(EVM_ACCOUNT_PATH).publicExtendedKey,
    bitcoinXpub: HDKey.fromMasterSeed(seed, ZPUB_VERSIONS).derive(BITCOIN_ACCOUNT_PATH).publicExtendedKey,
    solanaAddress0: solanaAddress(seed, 0),
  };
}

/** An account-level extended public key as supplied (xpub; for Bitcoin also zpub), or null when it is not one. */
export function parseAccountXpub(text: string, family: 'evm' | 'bitcoin'): HDKey | null {
  const versions = text.startsWith('zpub') && family === 'bitcoin' ? ZPUB_VERSIONS : text.startsWith('xpub') ? XPUB_VERSIONS : null;
  if (versions === null) return null;
  try {
    const key = HDKey.fromExtendedKey(text, versions);
    // an account key: public only, depth 3 (m / purpose' / coin' / account'), hardened index
    if (key.privateKey || key.depth !== 3 || key.index < 0x80000000 || !key.publicKey) return null;
    return key;
  } catch {
    return null;
  }
}

/** Receiving address `index` of an EVM account xpub (EIP-55 form). */
export function evmAddress(accountXpub: string, index: number): string {
  const key = accountChild(accountXpub, 'evm', index);
  return publicKeyToAddress(bytesToHex(secp256k1.ProjectivePoint.fromHex(key).toRawBytes(false)));
}

/** Native-segwit (P2WPKH, bc1q…) receiving address `index` of a Bitcoin account xpub/zpub. */
export function bitcoinAddress(accountXpub: string, index: number): string {
  const address = p2wpkh(accountChild(accountXpub, 'bitcoin', index)).address;
  if (!address) throw new Error('p2wpkh gave no address');
  return address;
}

/** Solana address `index` of a seed (base58 ed25519 public key). */
export function solanaAddress(seed: Uint8Array, index: number): string {
  const { key } = derivePath(solanaPath(index), Buffer.from(seed).toString('hex'));
  return base58.encode(ed25519.getPublicKey(key));
}

/**
 * The receiving chain (m / … / account' / 0) of account keys derived lately, by family and xpub:
 * every checkout derives one address from it, and parsing the xpub and deriving the chain key
 * cost two point decompressions and a multiplication each time (about half of an address).
 * Public keys only; bounded, the oldest entry dropped first.
 */
const RECEIVING_CHAINS = new Map<string, HDKey>();
const RECEIVING_CHAINS_KEPT = 256;

function receivingChain(accountXpub: string, family: 'evm' | 'bitcoin'): HDKey {
  const cacheKey = `${family}:${accountXpub}`;
  let chain = RECEIVING_CHAINS.get(cacheKey);
  if (chain === undefined) {
    const account = parseAccountXpub(accountXpub, family);
    if (!account) throw new Error(`not an account xpub for ${family}`);
    chain = account.deriveChild(0);
    if (RECEIVING_CHAINS.size >= RECEIVING_CHAINS_KEPT) RECEIVING_CHAINS.delete(RECEIVING_CHAINS.keys().next().value!);
    RECEIVING_CHAINS.set(cacheKey, chain);
  }
  return chain;
}

function accountChild(accountXpub: string, family: 'evm' | 'bitcoin', index: number): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index > MAX_ADDRESS_INDEX) throw new RangeError(`address index ${index} out of range`);
  const key = receivingChain(accountXpub, family).deriveChild(index).publicKey;
  if (!key) throw new Error('derivation gave no public key');
  return key;
}

/**
 * What identifies key material across wallets, whatever form it was given in (xpub or zpub, a
 * phrase or its public keys): sha256 of the family and the account's public key (or the Solana
 * address). Two wallets with the same fingerprint would receive to the same addresses.
 */
export function keyFingerprint(family: NetworkFamily, material: string): string {
  let canonical = material;
  if (family !== 'solana') {
    const key = parseAccountXpub(material, family);
    if (!key?.publicKey) throw new Error(`not an account xpub for ${family}`);
    canonical = bytesToHex(key.publicKey);
  }
  return createHash('sha256').update(`${family}:${canonical}`).digest('hex');
}
