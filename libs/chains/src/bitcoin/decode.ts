import { hex } from '@scure/base';
import { Address, OutScript } from '@scure/btc-signer';
import { BTCArray, RawOldTx, RawTx } from '@scure/btc-signer/script';
import { sha256x2 } from '@scure/btc-signer/utils';
import { type BitcoinChain, bitcoinAddressParams } from './network';

/**
 * Raw Bitcoin blocks and transactions, decoded with @scure/btc-signer's own wire coders.
 *
 * A serialized block is an 80-byte header, a CompactSize count and the transactions back to
 * back. btc-signer has no block type, so the framing is: the header read here (six fixed-width
 * fields), and the rest decoded by `BTCArray(RawTx)` — btc-signer's CompactSize-counted array of
 * its raw transaction coder, which reads both serializations (legacy, and segwit with its marker,
 * flag and witnesses) and fails on trailing or missing bytes.
 *
 * `RawTx` is what `Transaction.fromRaw` runs; the `Transaction` wrapper is not used because it is
 * a signer's object and refuses real chain data: without `allowUnknownOutputs` and
 * `disableScriptCheck` it throws on a bare multisig whose "keys" are data (Counterparty, in the
 * testnet fixture), without `allowUnknownVersion` on a version other than -1…3 (consensus allows
 * any), and its `id` throws "Transaction is not finalized" when an input has neither scriptSig
 * nor witness (pay-to-anchor and OP_TRUE spends do exactly that). It also validates every output
 * again, which costs as much as decoding.
 *
 * The txid is double-SHA-256 of the transaction without its witnesses (`RawOldTx`), shown byte-
 * reversed as explorers do. Every decoded block is checked against its header's merkle root, so
 * a misparse (ours or a corrupted answer) fails loudly instead of reporting wrong outputs.
 */

export class BitcoinDecodeError extends Error {
  override readonly name = 'BitcoinDecodeError';
}

export interface BitcoinBlockHeader {
  /** Block hash as explorers show it: double-SHA-256 of the 80 header bytes, reversed, hex. */
  readonly hash: string;
  /** The previous block's hash, same spelling (all zeros for the genesis block). */
  readonly parentHash: string;
  /** Merkle root of the txids, same spelling. */
  readonly merkleRoot: string;
  readonly version: number;
  /** Seconds since the epoch, as the miner wrote it. */
  readonly time: number;
  readonly bits: number;
  readonly nonce: number;
}

export interface BitcoinOutput {
  /** Position in the transaction's outputs (the transfer's `index`). */
  readonly vout: number;
  /** Satoshis. */
  readonly amount: bigint;
  /** The locking script (scriptPubKey). */
  readonly script: Uint8Array;
}

export interface BitcoinTransaction {
  /** Hex, as explorers show it. */
  readonly txid: string;
  /** Serialized with witnesses (segwit marker and flag). */
  readonly segwit: boolean;
  readonly inputCount: number;
  readonly outputs: readonly BitcoinOutput[];
}

export interface BitcoinBlock extends BitcoinBlockHeader {
  /** In block order; the first is the coinbase. */
  readonly transactions: readonly BitcoinTransaction[];
}

type RawTransaction = ReturnType<typeof RawTx.decode>;

const HEADER_BYTES = 80;
const RawTxList = BTCArray(RawTx);

/** Reversed copy as hex: Bitcoin shows hashes in the opposite byte order to the one it hashes in. */
function reversedHex(bytes: Uint8Array): string {
  return hex.encode(Uint8Array.from(bytes).reverse());
}

/** Decodes the 80-byte header at the start of `raw` and hashes it. */
export function decodeBitcoinHeader(raw: Uint8Array): BitcoinBlockHeader {
  if (raw.length < HEADER_BYTES) throw new BitcoinDecodeError(`a block header is ${HEADER_BYTES} bytes, got ${raw.length}`);
  const header = raw.subarray(0, HEADER_BYTES);
  const view = new DataView(header.buffer, header.byteOffset, HEADER_BYTES);
  return {
    hash: reversedHex(sha256x2(header)),
    version: view.getInt32(0, true),
    parentHash: reversedHex(header.subarray(4, 36)),
    merkleRoot: reversedHex(header.subarray(36, 68)),
    time: view.getUint32(68, true),
    bits: view.getUint32(72, true),
    nonce: view.getUint32(76, true),
  };
}

/** txid bytes in hashing order (not reversed). */
function txidBytes(tx: RawTransaction): Uint8Array {
  return sha256x2(RawOldTx.encode(tx));
}

function toTransaction(tx: RawTransaction, id: Uint8Array): BitcoinTransaction {
  return {
    txid: reversedHex(id),
    segwit: tx.segwitFlag === true,
    inputCount: tx.inputs.length,
    outputs: tx.outputs.map((output, vout) => ({ vout, amount: output.amount, script: output.script })),
  };
}

/**
 * Merkle root of txids given in hashing order (not reversed): pairs hashed with double-SHA-256,
 * the last one paired with itself on an odd level. Returned in the header's spelling (reversed hex).
 */
export function bitcoinMerkleRoot(txids: readonly Uint8Array[]): string {
  if (txids.length === 0) throw new BitcoinDecodeError('a block has at least one transaction');
  let level: Uint8Array[] = [...txids];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i];
      const right = level[i + 1] ?? left;
      const pair = new Uint8Array(64);
      pair.set(left, 0);
      pair.set(right, 32);
      next.push(sha256x2(pair));
    }
    level = next;
  }
  return reversedHex(level[0]);
}

/**
 * Decodes a serialized block (Esplora's GET /block/:hash/raw, Bitcoin Core's getblock verbosity
 * 0): header, every transaction, txids, checked against the header's merkle root.
 */
export function decodeBitcoinBlock(raw: Uint8Array): BitcoinBlock {
  const header = decodeBitcoinHeader(raw);
  let decoded: RawTransaction[];
  try {
    decoded = RawTxList.decode(raw.subarray(HEADER_BYTES));
  } catch (error) {
    throw new BitcoinDecodeError(`block ${header.hash}: transactions do not decode: ${(error as Error).message}`);
  }
  const ids = decoded.map(txidBytes);
  const root = bitcoinMerkleRoot(ids);
  if (root !== header.merkleRoot) {
    throw new BitcoinDecodeError(`block ${header.hash}: its transactions hash to merkle root ${root}, the header says ${header.merkleRoot}`);
  }
  return { ...header, transactions: decoded.map((tx, i) => toTransaction(tx, ids[i])) };
}

/** Decodes one serialized transaction (Esplora's GET /tx/:txid/raw, or /hex decoded). */
export function decodeBitcoinTransaction(raw: Uint8Array): BitcoinTransaction {
  let tx: RawTransaction;
  try {
    tx = RawTx.decode(raw);
  } catch (error) {
    throw new BitcoinDecodeError(`transaction does not decode: ${(error as Error).message}`);
  }
  return toTransaction(tx, txidBytes(tx));
}

const OP_RETURN = 0x6a;
const encoders = new Map<BitcoinChain, ReturnType<typeof Address>>();

function encoderFor(chain: BitcoinChain): ReturnType<typeof Address> {
  let encoder = encoders.get(chain);
  if (encoder === undefined) {
    encoder = Address(bitcoinAddressParams(chain));
    encoders.set(chain, encoder);
  }
  return encoder;
}

/**
 * The address an output pays, in the registry's spelling (lower-case Bech32 / Bech32m, base58
 * as is), or null when the script has none: P2PKH `1…`, P2SH `3…`, P2WPKH and P2WSH `bc1q…`,
 * P2TR `bc1p…` have addresses; bare public keys (P2PK), bare multisig, OP_RETURN data, pay-to-
 * anchor, future witness versions and non-standard scripts do not (nothing the service hands
 * out looks like them). Never throws on a script, however malformed.
 */
export function bitcoinOutputAddress(script: Uint8Array, chain: BitcoinChain = 'mainnet'): string | null {
  if (script.length === 0 || script[0] === OP_RETURN) return null;
  let decoded: ReturnType<typeof OutScript.decode>;
  try {
    decoded = OutScript.decode(script);
  } catch {
    return null; // e.g. a bare multisig whose "public keys" are data
  }
  switch (decoded.type) {
    case 'pkh':
    case 'sh':
    case 'wpkh':
    case 'wsh':
    case 'tr':
      return encoderFor(chain).encode(decoded);
    default:
      return null;
  }
}
