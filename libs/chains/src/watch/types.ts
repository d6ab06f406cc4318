import type { AssetCode, NetworkFamily, NetworkId } from '../registry';

/**
 * The seam between the chains and the rest of the service (issue 11): a watcher per network
 * reads blocks from a node through a ChainReader, keeps only the transfers to addresses the
 * service reserved (WatchedAddresses), and reports them to a TransferSink. The payments
 * capability implements the sink (it turns reports into the same checkout commands the
 * simulation uses) and the address book; the chains library knows nothing about checkouts.
 *
 * Every report is at-least-once: after a restart a watcher may report a transfer, a confirmation
 * count or a withdrawal again. A transfer is identified by (network, txHash, index), and the
 * sink makes a repeated report change nothing.
 */

/** A block a watcher has read: where it sits in the chain and the watched transfers in it. */
export interface BlockRef {
  /** EVM block number, Bitcoin block height, Solana slot. */
  readonly height: number;
  /** The block's hash as the chain writes it (EVM 0x lower-case hex, Bitcoin hex, Solana base58 blockhash). */
  readonly hash: string;
  /**
   * When the block was made, in seconds since the epoch, as the chain states it (EVM and Bitcoin
   * header timestamp, Solana blockTime); absent when the reader did not read it (a transfer
   * loaded back from the watch store). A transfer's lateness is judged by it (decision 0025,
   * addendum of 2026-11-29, lateness at mining).
   */
  readonly time?: number;
}

/** One transfer of a coin to an address the service watches. */
export interface ObservedTransfer {
  readonly network: NetworkId;
  /** As the chain writes it: EVM 0x lower-case hex, Bitcoin hex txid, Solana base58 signature. */
  readonly txHash: string;
  /**
   * Where in the transaction: EVM position of an ERC-20 Transfer log among the transaction's
   * own logs (its logIndex minus the transaction's first logIndex, so the key stays the same
   * when a reorg re-includes the transaction elsewhere in another block; -1 for the
   * transaction's own native value), Bitcoin output index (vout), Solana instruction index
   * (outer × 1000 + inner, or outer × 1000 + 999 for a top-level instruction).
   */
  readonly index: number;
  readonly asset: AssetCode;
  /** Smallest units of the coin. */
  readonly amount: bigint;
  /** The watched address that received it, in the registry's form (EVM: EIP-55 checksum). */
  readonly to: string;
  /** The sender, when one address is it (null for a Bitcoin transaction with several inputs' owners, …). */
  readonly from: string | null;
  /** The block that includes it. */
  readonly block: BlockRef;
  /** Solana Pay reference key the transaction carried, if it matched on one. */
  readonly reference?: string | null;
}

/**
 * A transaction paying a watched address seen unconfirmed, in the node's mempool (decision 0023,
 * addendum 2026-11-29): nothing is final or even mined; a sink may hold what waits for it.
 */
export interface PendingTransfer {
  readonly network: NetworkId;
  readonly txHash: string;
  readonly asset: AssetCode;
  /** Smallest units, every output of the transaction to the address summed. */
  readonly amount: bigint;
  /** The watched address, in the spelling it was asked for. */
  readonly to: string;
}

/** What the node knows of one address's transactions at one look: those in its mempool, and those it has mined lately. */
export interface MempoolSnapshot {
  readonly network: NetworkId;
  readonly address: string;
  readonly pending: readonly PendingTransfer[];
  /** Hashes of the address's newest mined transactions (a transaction gone from the mempool and here was mined, not dropped). */
  readonly mined: readonly string[];
}

/** What a reader finds in one block. */
export interface ScannedBlock extends BlockRef {
  /**
   * The previous block's hash (Solana: the parent slot's block; a skipped slot has none): a
   * watcher compares it with the hash of the block it scanned last to find reorgs.
   */
  readonly parentHash: string;
  /** Transfers in this block to watched addresses, in chain order. */
  readonly transfers: readonly ObservedTransfer[];
}

/** The addresses the service reserved, across every business and checkout. */
export interface WatchedAddresses {
  /**
   * The subset of `addresses` that the service watches on networks of `family`. EVM addresses
   * compare case-insensitively: the EVM reader asks in lower case (checksumming thousands of
   * recipients a block costs more than reading them) and accepts the answer in any case. One
   * address serves every EVM network, so a transfer on the wrong EVM network is found too.
   */
  watched(family: NetworkFamily, addresses: readonly string[]): Promise<ReadonlySet<string>>;
  /** Solana only: the subset of `keys` that are Solana Pay reference keys of open checkouts. */
  watchedReferences?(keys: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

/** Reads one network from its node. Implementations are thin: no state, no retries (the watcher retries). */
export interface ChainReader {
  readonly network: NetworkId;
  /** Height of the newest block the node has. */
  head(): Promise<number>;
  /**
   * The canonical block at `height` with the transfers in it to watched addresses; null when the
   * node has none there (yet). A watcher passes over a height below the head that has no block
   * (a skipped slot) once a later block is there: that block's parentHash shows whether one was
   * missed.
   */
  block(height: number, watched: WatchedAddresses): Promise<ScannedBlock | null>;
  /** Hash of the canonical block at `height`, or null when there is none (to tell whether a transfer's block is still canonical). */
  blockHash(height: number): Promise<string | null>;
  /**
   * Optional batch read: the canonical blocks from `from` to `to` (inclusive) in ascending
   * height order, with the same content block() gives, read in fewer round trips (EVM: one
   * getLogs for the range). A height without a block is left out (a skipped Solana slot), and
   * the answer may stop early (the node has no block there yet): the watcher goes on after the
   * last block returned. Watchers use it when present and call block() per height otherwise.
   */
  blocks?(from: number, to: number, watched: WatchedAddresses): Promise<readonly ScannedBlock[]>;
  /**
   * Optional (Bitcoin): what the node's mempool holds for `address`, and the address's newest
   * mined transactions. Watchers whose sink asks for it look at the addresses the sink names.
   */
  mempool?(address: string): Promise<MempoolSnapshot>;
}

/** Where a watcher reports. Each call is idempotent by the transfer's (network, txHash, index). */
export interface TransferSink {
  /**
   * A transfer seen in a canonical block. Reported again, with its new block, when a reorg moved
   * it to another block — under the same key, or under its new index when the transaction, mined
   * again, put it at another place (the old key is then let go, never withdrawn). Mined again with
   * another amount, it is withdrawn first and then reported with the new amount.
   */
  detected(transfer: ObservedTransfer): Promise<void>;
  /**
   * Its confirmations (head − height + 1, the head as the watcher scanned it, capped at the
   * network's required count), reported when they grow; the required count makes it final and
   * the watcher stops following it. After a move to another block the count starts again from
   * that block (it may be lower than one reported before).
   */
  confirmed(transfer: ObservedTransfer, confirmations: number): Promise<void>;
  /** Its block left the canonical chain before it was final, and the new chain does not carry it. */
  withdrawn(transfer: ObservedTransfer): Promise<void>;
  /**
   * Optional, with `mempool` (decision 0023, addendum 2026-11-29): the addresses on `network`
   * whose mempool the watcher should look at (those still waiting for money).
   */
  awaitingAddresses?(network: NetworkId): Promise<readonly string[]>;
  /** What the node's mempool holds for one of those addresses: at least once, idempotent. */
  mempool?(snapshot: MempoolSnapshot): Promise<void>;
}
