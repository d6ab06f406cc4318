import { Refusal } from '@lib/domain';
import { createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { p2wpkh } from '@scure/btc-signer';
import { sha256 } from '@scure/btc-signer/utils';
import { type BitcoinChain, bitcoinAddressParams } from './network';

/**
 * Native-segwit receiving addresses from a wallet's account public key (BIP-84): the account key
 * is m/84'/0'/0' (m/84'/1'/0' on test chains), its receiving chain is child 0, and receiving
 * address i is P2WPKH of child 0/i — both steps non-hardened, so the service derives them from
 * the public key alone and never holds a private key.
 *
 * Accepted: `zpub` (BIP-84's own serialization) and `xpub` (what Ledger, Trezor and Bitcoin Core
 * descriptors export for the same account); `vpub` / `tpub` on testnet and regtest. Refused:
 * private keys (`xprv`, `zprv`, …: the service must never receive one), `ypub` / `upub`
 * (BIP-49 accounts, whose wallets look for P2SH-wrapped addresses and would not see payments to
 * native-segwit ones), another chain's keys, and keys that are not at account depth (3).
 */

export type BitcoinKeyErrorCode = 'invalid_extended_key';

export class BitcoinKeyError extends Refusal<BitcoinKeyErrorCode> {
  override readonly name = 'BitcoinKeyError';
}

interface KeyVersion {
  readonly name: string;
  readonly public: number;
  readonly private: number;
  readonly test: boolean;
}

/** SLIP-132 version bytes of the accepted serializations (public, and the private twin that is refused). */
const ACCEPTED: readonly KeyVersion[] = [
  { name: 'xpub', public: 0x0488b21e, private: 0x0488ade4, test: false },
  { name: 'zpub', public: 0x04b24746, private: 0x04b2430c, test: false },
  { name: 'tpub', public: 0x043587cf, private: 0x04358394, test: true },
  { name: 'vpub', public: 0x045f1cf6, private: 0x045f18bc, test: true },
];
const BIP49: readonly KeyVersion[] = [
  { name: 'ypub', public: 0x049d7cb2, private: 0x049d7878, test: false },
  { name: 'upub', public: 0x044a5262, private: 0x044a4e28, test: true },
];

const ACCOUNT_DEPTH = 3;
const HARDENED = 0x80000000;
const RECEIVING_CHAIN = 0;
const base58check = createBase58check(sha256);

function refuse(message: string, field: string | null): never {
  throw new BitcoinKeyError('invalid_extended_key', message, field);
}

/** A BIP-84 account, parsed once; derives its receiving addresses. */
export class Bip84Account {
  private constructor(
    /** The receiving chain's node (account/0). */
    private readonly receiving: HDKey,
    private readonly chain: BitcoinChain,
    /** The account key as given. */
    readonly extendedKey: string,
  ) {}

  /**
   * Parses an account extended public key. `field` names the input in a refusal (default
   * `xpub`); `chain` is the chain the key and its addresses are for (default mainnet).
   */
  static parse(extendedKey: string, options: { chain?: BitcoinChain; field?: string } = {}): Bip84Account {
    const chain = options.chain ?? 'mainnet';
    const field = options.field ?? 'xpub';
    bitcoinAddressParams(chain); // refuses an unknown chain
    if (typeof extendedKey !== 'string' || extendedKey.trim() === '') refuse('an account extended public key is required', field);
    const key = extendedKey.trim();
    let payload: Uint8Array;
    try {
      payload = base58check.decode(key);
    } catch {
      refuse('not an extended key (Base58Check does not decode)', field);
    }
    if (payload.length !== 78) refuse(`not an extended key (${payload.length} bytes, an extended key is 78)`, field);
    const version = new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0, false);
    const bip49 = BIP49.find((v) => v.public === version || v.private === version);
    if (bip49) refuse(`a ${bip49.name} is a BIP-49 (P2SH-wrapped segwit) account key; give the native-segwit (BIP-84) account's zpub or xpub`, field);
    const known = ACCEPTED.find((v) => v.public === version || v.private === version);
    if (!known) refuse('not a Bitcoin account public key (unknown version bytes)', field);
    if (known.private === version) refuse('this is a private key; give the account\'s extended public key (zpub or xpub)', field);
    if (known.test !== (chain !== 'mainnet')) {
      refuse(`a ${known.name} is a ${known.test ? 'test-network' : 'mainnet'} key; this service's Bitcoin network is ${chain}`, field);
    }
    let account: HDKey;
    try {
      account = HDKey.fromExtendedKey(key, { public: known.public, private: known.private });
    } catch (error) {
      refuse(`not a valid extended public key (${(error as Error).message})`, field);
    }
    if (account.depth !== ACCOUNT_DEPTH || account.index < HARDENED) {
      const where = account.index >= HARDENED ? `${account.index - HARDENED}'` : String(account.index);
      refuse(`an account key is at m/84'/coin'/account' (depth 3, a hardened index); this one is at depth ${account.depth}, index ${where}`, field);
    }
    return new Bip84Account(account.deriveChild(RECEIVING_CHAIN), chain, key);
  }

  /** Receiving address `index` (m/84'/coin'/account'/0/index), lower-case Bech32 (`bc1q…`). */
  receivingAddress(index: number): string {
    if (!Number.isSafeInteger(index) || index < 0 || index >= HARDENED) {
      throw new RangeError(`a receiving address index is an integer from 0 to ${HARDENED - 1}, got ${index}`);
    }
    const node = this.receiving.deriveChild(index);
    if (node.publicKey === null) throw new Error('derived key has no public key');
    const address = p2wpkh(node.publicKey, bitcoinAddressParams(this.chain)).address;
    if (address === undefined) throw new Error('p2wpkh gave no address');
    return address;
  }
}

/** Receiving address `index` of a BIP-84 account key (parses the key each call; keep a Bip84Account to derive many). */
export function bip84ReceivingAddress(accountKey: string, index: number, options: { chain?: BitcoinChain } = {}): string {
  return Bip84Account.parse(accountKey, options).receivingAddress(index);
}
