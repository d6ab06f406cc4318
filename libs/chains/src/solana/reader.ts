import type { NetworkId } from '../registry/types';
import type { ChainReader, ScannedBlock, WatchedAddresses } from '../watch/types';
import { MAINNET_GENESIS_HASH, loadSolanaWeb3, type SolanaWeb3 } from './programs';
import { type SolanaCommitment, SolanaRpc } from './rpc';
import { SolanaTransfers, type SolanaTransfersOptions } from './transfers';

export interface SolanaReaderOptions extends SolanaTransfersOptions {
  /** The node's JSON-RPC endpoint (http or https). */
  readonly url: string;
  /**
   * Which blocks the reader sees (default 'confirmed': voted on by a supermajority, seconds
   * after the slot; the watcher counts slots on top of it up to the network's 32 for finality).
   */
  readonly commitment?: SolanaCommitment;
  /** Deadline of one HTTP request to the node (default 10 s). */
  readonly timeoutMs?: number;
  /**
   * The cluster's genesis hash, which head() checks once (default mainnet-beta's); null skips
   * the check (a local validator, devnet with its own mints). A node of another cluster is an
   * error, not a source of transfers: devnet SOL is free.
   */
  readonly genesisHash?: string | null;
  /**
   * Highest transaction version the node may answer (default 0). A block holding a newer one
   * makes getBlock fail (-32015) until this is raised and the decoder reads it.
   */
  readonly maxSupportedTransactionVersion?: number;
}

/** The node serves another cluster than the one configured. */
export class SolanaClusterMismatchError extends Error {
  override readonly name = 'SolanaClusterMismatchError';
}

/** The node listed a slot as a block, then had no block there (load-balanced nodes disagreeing, or a fork switch): read again. */
export class SolanaBlockUnavailableError extends Error {
  override readonly name = 'SolanaBlockUnavailableError';
}

/**
 * Solana read through a node's JSON-RPC (ChainReader; decision 0022). Heights are slots:
 *
 * - head(): getSlot at the commitment.
 * - block(slot): getBlock (encoding json, full transactions, no rewards) → hash = blockhash,
 *   parentHash = previousBlockhash, the watched transfers (SolanaTransfers). A slot without a
 *   block — skipped by its leader (a few percent of slots), or not confirmed yet — is null.
 * - blocks(from, to): getBlocks lists the slots of the range that have a block (skipped slots
 *   are left out, so the watcher moves past them instead of waiting), then one getBlock each;
 *   it stops early at the node's confirmed tip. Since the next block's previousBlockhash is the
 *   last produced block's, the watcher's parentHash check holds across skipped slots.
 * - blockHash(slot): getBlock with transactionDetails 'none'; null for a slot without a block.
 *
 * Stateless apart from the one genesis check; no retries (the watcher retries).
 */
export class SolanaReader implements ChainReader {
  readonly network: NetworkId;
  readonly transfers: SolanaTransfers;
  private readonly rpc: SolanaRpc;
  private readonly commitment: SolanaCommitment;
  private readonly maxSupportedTransactionVersion: number;
  private readonly genesisHash: string | null;
  private genesisChecked = false;

  constructor(web3: SolanaWeb3, options: SolanaReaderOptions) {
    this.transfers = new SolanaTransfers(web3, options);
    this.network = this.transfers.network;
    this.rpc = new SolanaRpc(options.url, options.timeoutMs ?? 10_000);
    this.commitment = options.commitment ?? 'confirmed';
    this.maxSupportedTransactionVersion = options.maxSupportedTransactionVersion ?? 0;
    this.genesisHash = options.genesisHash === undefined ? MAINNET_GENESIS_HASH : options.genesisHash;
  }

  async head(): Promise<number> {
    if (!this.genesisChecked && this.genesisHash !== null) {
      const genesis = await this.rpc.getGenesisHash();
      if (genesis !== this.genesisHash) throw new SolanaClusterMismatchError(`the node for ${this.network} serves the cluster with genesis hash ${genesis}, not ${this.genesisHash}`);
    }
    this.genesisChecked = true;
    return this.rpc.getSlot(this.commitment);
  }

  /**
   * The newest finalized slot (getSlot at 'finalized'): a block at or below it can no longer
   * leave the chain. Not part of ChainReader (the watcher counts 32 slots instead); here for a
   * watcher that wants the cluster's own word on finality.
   */
  finalizedHead(): Promise<number> {
    return this.rpc.getSlot('finalized');
  }

  async block(slot: number, watched: WatchedAddresses): Promise<ScannedBlock | null> {
    const block = await this.rpc.getBlock(slot, this.config('full'));
    return block ? this.transfers.scanBlock(slot, block, watched) : null;
  }

  async blocks(from: number, to: number, watched: WatchedAddresses): Promise<readonly ScannedBlock[]> {
    const slots = (await this.rpc.getBlocks(from, to, this.commitment)).filter((slot) => slot >= from && slot <= to).sort((a, b) => a - b);
    const scanned: ScannedBlock[] = [];
    for (const slot of slots) {
      const block = await this.block(slot, watched);
      if (block) {
        scanned.push(block);
        continue;
      }
      // listed, then not served: stop here (the watcher goes on after the last block answered);
      // with nothing read at all, say so rather than let the range look empty
      if (scanned.length === 0) throw new SolanaBlockUnavailableError(`getBlocks listed slot ${slot} of ${this.network}, getBlock has no block there`);
      break;
    }
    return scanned;
  }

  async blockHash(slot: number): Promise<string | null> {
    const block = await this.rpc.getBlock(slot, this.config('none'));
    return block ? block.blockhash : null;
  }

  private config(transactionDetails: 'full' | 'none') {
    return { commitment: this.commitment, transactionDetails, maxSupportedTransactionVersion: this.maxSupportedTransactionVersion };
  }
}

/** A SolanaReader with @solana/web3.js loaded. */
export async function createSolanaReader(options: SolanaReaderOptions): Promise<SolanaReader> {
  return new SolanaReader(await loadSolanaWeb3(), options);
}
