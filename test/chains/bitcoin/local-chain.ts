import { randomBytes } from 'node:crypto';
import { Address, NETWORK, OutScript } from '@scure/btc-signer';
import { BTCArray, RawOldTx, RawTx } from '@scure/btc-signer/script';
import { sha256x2 } from '@scure/btc-signer/utils';
import type { ServedBlock, TestEsplora } from '../../support/esplora';

type RawTransaction = Parameters<typeof RawTx.encode>[0];

/** A transaction built here: its txid as explorers show it, and the structure blocks serialize. */
export interface LocalBitcoinTx {
  readonly txid: string;
  readonly raw: RawTransaction;
}

/** A block of the local chain: height, hash (explorer spelling) and its serialized bytes. */
export interface LocalBitcoinBlock extends ServedBlock {
  readonly hash: string;
}

const reversedHex = (bytes: Uint8Array): string => Buffer.from(bytes).reverse().toString('hex');
const fromReversedHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex').reverse());

/**
 * A mainnet-shaped Bitcoin chain written by a test, served through the Esplora stand-in (no
 * Bitcoin node runs here): transactions paying mainnet addresses (legacy serialization, one
 * input spending a made-up output, the outputs the test names), and blocks of them — a coinbase
 * first, the header's parent hash and merkle root real, so the reader's checks (the header hashes
 * to the hash asked for, the txids to the merkle root) hold. No proof of work: the reader trusts
 * its indexer and checks none. Blocks go on the best chain (`mine`) or, for a reorganisation,
 * on top of any earlier block (`mineOn`, then `adopt` the branch).
 */
export class LocalBitcoinChain {
  /** The best chain, height 0 first. */
  private chain: LocalBitcoinBlock[] = [];

  constructor(
    private readonly esplora: TestEsplora,
    private readonly firstHeight = 900_000,
  ) {}

  get tip(): LocalBitcoinBlock {
    return this.chain[this.chain.length - 1];
  }

  /** A transaction paying `outputs` (satoshis to mainnet addresses, in vout order). */
  pay(outputs: readonly { address: string; sats: bigint }[]): LocalBitcoinTx {
    return this.transaction(
      [{ txid: randomBytes(32), index: 0, finalScriptSig: new Uint8Array(0), sequence: 0xfffffffd }],
      outputs.map(({ address, sats }) => ({ amount: sats, script: OutScript.encode(Address(NETWORK).decode(address)) })),
    );
  }

  /** Broadcasts `tx`: the Esplora stand-in lists it in the mempool until a block carries it (or `evict` drops it). */
  broadcast(tx: LocalBitcoinTx): void {
    this.esplora.broadcast(RawTx.encode(tx.raw));
  }

  /** Drops `tx` from the mempool unmined (evicted, replaced by fee). */
  evict(tx: LocalBitcoinTx): void {
    this.esplora.dropFromMempool(tx.txid);
  }

  /** A block on the best chain's tip carrying `txs`, served as the new tip. */
  mine(txs: readonly LocalBitcoinTx[] = []): LocalBitcoinBlock {
    const block = this.mineOn(this.chain.length > 0 ? this.tip : null, txs);
    this.adopt([block]);
    return block;
  }

  /** `count` empty blocks on the best chain. */
  mineEmpty(count: number): LocalBitcoinBlock {
    for (let i = 0; i < count; i++) this.mine();
    return this.tip;
  }

  /** A block on top of `parent` (null: the first block), not served until a branch holding it is adopted. */
  mineOn(parent: LocalBitcoinBlock | null, txs: readonly LocalBitcoinTx[] = []): LocalBitcoinBlock {
    const height = parent ? parent.height + 1 : this.firstHeight;
    const coinbase = this.transaction(
      [{ txid: new Uint8Array(32), index: 0xffffffff, finalScriptSig: Uint8Array.from([3, height & 0xff, (height >> 8) & 0xff, (height >> 16) & 0xff, ...randomBytes(4)]), sequence: 0xffffffff }],
      [{ amount: 312_500_000n, script: Uint8Array.from([0x51]) }], // OP_TRUE: no address
    );
    const all = [coinbase, ...txs];
    const header = new Uint8Array(80);
    const view = new DataView(header.buffer);
    view.setInt32(0, 0x20000000, true);
    header.set(parent ? fromReversedHex(parent.hash) : new Uint8Array(32), 4);
    header.set(merkleRoot(all.map((tx) => fromReversedHex(tx.txid))), 36);
    view.setUint32(68, 1_750_000_000 + height, true);
    view.setUint32(72, 0x17030ecd, true);
    view.setUint32(76, randomBytes(4).readUInt32LE(0), true);
    const raw = Uint8Array.from([...header, ...BTCArray(RawTx).encode(all.map((tx) => tx.raw))]);
    return { height, hash: reversedHex(sha256x2(header)), raw };
  }

  /** Makes `branch` (consecutive blocks, the first on a block of the best chain) the best chain, and serves it. */
  adopt(branch: readonly LocalBitcoinBlock[]): void {
    const first = branch[0];
    this.chain = [...this.chain.filter((block) => block.height < first.height), ...branch];
    this.esplora.setBlocks(this.chain);
  }

  /** The best chain's block at `height`. */
  at(height: number): LocalBitcoinBlock {
    const block = this.chain.find((b) => b.height === height);
    if (!block) throw new Error(`no block at ${height}`);
    return block;
  }

  private transaction(inputs: RawTransaction['inputs'], outputs: RawTransaction['outputs']): LocalBitcoinTx {
    const raw: RawTransaction = { version: 2, segwitFlag: false, inputs, outputs, witnesses: undefined, lockTime: 0 };
    return { txid: reversedHex(sha256x2(RawOldTx.encode(raw))), raw };
  }
}

/** Merkle root of txids in hashing order (the last one paired with itself on an odd level). */
function merkleRoot(ids: readonly Uint8Array[]): Uint8Array {
  let level = [...ids];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256x2(Uint8Array.from([...level[i], ...(level[i + 1] ?? level[i])])));
    level = next;
  }
  return level[0];
}
