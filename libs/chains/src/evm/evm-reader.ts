import { defaultRegistry } from '../registry';
import type { ChainRegistry } from '../registry/registry';
import type { AssetCode, NetworkId } from '../registry/types';
import type { BlockRef, ChainReader, ObservedTransfer, ScannedBlock, WatchedAddresses } from '../watch/types';

/** An ERC-20 token a reader looks for. */
export interface EvmToken {
  readonly asset: AssetCode;
  /** The token contract (any case). */
  readonly contract: string;
}

export interface EvmReaderOptions {
  /** An EVM network of the registry (ethereum, polygon, base, arbitrum). */
  readonly network: NetworkId;
  /** The node's JSON-RPC endpoint (http or https). */
  readonly url: string;
  /** Where networks, chain ids, native assets and token contracts come from (default: defaultRegistry). */
  readonly registry?: ChainRegistry;
  /**
   * The tokens to look for, instead of the registry's contracts on the network (local test
   * chains deploy their own token). An empty list watches native transfers only.
   */
  readonly tokens?: readonly EvmToken[];
  /** Deadline of one HTTP request to the node (default 10 s). */
  readonly timeoutMs?: number;
  /** JSON-RPC calls sent together in one HTTP request at most (default 100). */
  readonly rpcBatchSize?: number;
  /**
   * Whether head() first checks, once, that the node's eth_chainId is the network's chain id
   * (default true): a node of another chain is an error, not a source of transfers.
   */
  readonly checkChainId?: boolean;
}

/** The node's chain changed between two reads of one scan (a reorg in between): read again. */
export class EvmChainMovedError extends Error {
  override readonly name = 'EvmChainMovedError';
}

/** The node serves another chain than the network's. */
export class EvmChainMismatchError extends Error {
  override readonly name = 'EvmChainMismatchError';
}

/** topic0 of ERC-20 `Transfer(address indexed from, address indexed to, uint256 value)`: keccak256 of that signature. */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** An indexed address topic: 12 zero bytes, then the address. */
const ADDRESS_TOPIC = /^0x0{24}[0-9a-fA-F]{40}$/;

/** viem, loaded on first use (its ESM types are read through a dynamic import in this CommonJS library). */
const loadViem = () => import('viem');
type Viem = Awaited<ReturnType<typeof loadViem>>;

type Hex = `0x${string}`;
type Address = Hex;
type Hash = Hex;

/** The parts of viem's answers the reader reads (viem's own types are assignable to these). */
interface Transaction {
  readonly hash: Hash;
  readonly from: Address;
  readonly to: Address | null;
  readonly value: bigint;
  readonly transactionIndex: number | null;
}

/** A block as getBlock answers it: its transactions are objects when asked for (hashes otherwise). */
interface FullBlock {
  readonly number: bigint | null;
  readonly hash: Hash | null;
  readonly parentHash: Hash;
  /** Seconds since the epoch. */
  readonly timestamp: bigint;
  readonly transactions: readonly (Hash | Transaction)[];
}

interface TransactionReceipt {
  readonly transactionHash: Hash;
  readonly blockHash: Hash;
  readonly status: 'success' | 'reverted';
  readonly logs: readonly { readonly logIndex: number | null }[];
}

/** A log as eth_getLogs answers it (quantities in hex). */
interface RpcLog {
  readonly address: Address;
  readonly topics: readonly Hex[];
  readonly data: Hex;
  readonly blockNumber: Hex | null;
  readonly blockHash: Hash | null;
  readonly transactionHash: Hash | null;
  readonly transactionIndex: Hex | null;
  readonly logIndex: Hex | null;
  readonly removed?: boolean;
}

/** A token Transfer log, decoded (addresses in lower case). */
interface TokenLog {
  readonly address: Address;
  readonly blockHash: Hash;
  readonly blockNumber: bigint;
  readonly transactionHash: Hash;
  readonly transactionIndex: number;
  readonly logIndex: number;
  readonly args: { readonly from: Address; readonly to: Address; readonly value: bigint };
}

/** What the reader asks the node, through viem's public client. */
interface EvmClient {
  getChainId(): Promise<number>;
  getBlockNumber(args: { cacheTime: number }): Promise<bigint>;
  getBlock(args: { blockNumber: bigint; includeTransactions: boolean }): Promise<FullBlock>;
  getTransactionReceipt(args: { hash: Hash }): Promise<TransactionReceipt>;
  /**
   * eth_getLogs sent as is: viem's getLogs decodes each log through the ABI, which took ~5×
   * the node's own time for 4,000 Transfer logs (measured by bench:chains); a Transfer is
   * decoded here from its topics and data.
   */
  request(args: {
    method: 'eth_getLogs';
    params: [({ blockHash: Hash } | { fromBlock: Hex; toBlock: Hex }) & { address: Address[]; topics: Hex[] }];
  }): Promise<readonly RpcLog[]>;
}

/**
 * An EVM network read through viem (createPublicClient over an http transport, JSON-RPC batching
 * on, viem's own retries off: the watcher retries). What it reports, per block:
 *
 * - native value: a transaction of the block whose `to` is watched and whose value is > 0, if it
 *   succeeded (its receipt's status), on networks whose native coin is a payment asset (ETH on
 *   ethereum, base, arbitrum; not POL on polygon). Only top-level value: ETH that a contract
 *   forwards inside a transaction (an internal transfer: a smart wallet, a multisig, a
 *   withdrawal from an exchange's contract) is not seen, since it appears in no block field or
 *   log, only in a trace (debug_traceBlock, which few providers serve).
 * - ERC-20: `Transfer(address,address,uint256)` logs of the network's token contracts (from the
 *   registry, or `tokens`) whose `to` is watched, read with one getLogs per block (by its hash)
 *   or per batch (by range, checked against the blocks' hashes).
 *
 * The `to` filter runs here, not at the node: one WatchedAddresses call per block or batch with
 * every recipient in it, in lower case (a topic filter with thousands of addresses is refused by
 * most providers). Each matched transaction's receipt is read (status; its first log's index, for
 * the transfer's index within the transaction). Amounts are bigint, addresses EIP-55, hashes
 * lower-case hex.
 */
export class EvmReader implements ChainReader {
  readonly network: NetworkId;
  private readonly client: EvmClient;
  private readonly tokens: ReadonlyMap<string, AssetCode>;
  private readonly tokenAddresses: Address[];
  private readonly nativeAsset: AssetCode | null;
  private readonly chainId: number;
  private chainChecked: boolean;

  constructor(
    private readonly viem: Viem,
    options: EvmReaderOptions,
  ) {
    const registry = options.registry ?? defaultRegistry;
    const network = registry.network(options.network);
    if (network.family !== 'evm' || network.chainId === null) throw new Error(`${options.network} is not an EVM network`);
    this.network = network.id;
    this.chainId = network.chainId;
    this.nativeAsset = network.nativeCurrency.asset;
    const tokens =
      options.tokens ??
      registry
        .assetsOn(network.id)
        .map((asset) => registry.assetOn(asset, network.id))
        .filter((entry) => entry.standard === 'erc20' && entry.contract !== null)
        .map((entry) => ({ asset: entry.asset, contract: entry.contract as string }));
    this.tokens = new Map(tokens.map((token) => [token.contract.toLowerCase(), token.asset]));
    this.tokenAddresses = tokens.map((token) => viem.getAddress(token.contract));
    this.chainChecked = options.checkChainId === false;
    const client = viem.createPublicClient({
      transport: viem.http(options.url, {
        batch: { batchSize: options.rpcBatchSize ?? 100 },
        retryCount: 0,
        timeout: options.timeoutMs ?? 10_000,
      }),
    });
    this.client = client;
  }

  async head(): Promise<number> {
    if (!this.chainChecked) {
      const id = await this.client.getChainId();
      if (id !== this.chainId) throw new EvmChainMismatchError(`the node for ${this.network} serves chain id ${id}, not ${this.chainId}`);
      this.chainChecked = true;
    }
    return Number(await this.client.getBlockNumber({ cacheTime: 0 }));
  }

  async blockHash(height: number): Promise<string | null> {
    const block = await this.getBlock(height, false);
    return block?.hash ? block.hash.toLowerCase() : null;
  }

  async block(height: number, watched: WatchedAddresses): Promise<ScannedBlock | null> {
    const [block] = await this.read(height, height, watched);
    return block ?? null;
  }

  blocks(from: number, to: number, watched: WatchedAddresses): Promise<readonly ScannedBlock[]> {
    return this.read(from, to, watched);
  }

  private async getBlock(height: number, includeTransactions: boolean): Promise<FullBlock | null> {
    try {
      return await this.client.getBlock({ blockNumber: BigInt(height), includeTransactions });
    } catch (error) {
      if (error instanceof this.viem.BlockNotFoundError) return null;
      throw error;
    }
  }

  /** The blocks from..to that the node has (stopping at the first it has not), with their watched transfers. */
  private async read(from: number, to: number, watched: WatchedAddresses): Promise<ScannedBlock[]> {
    if (to < from) return [];
    const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    // a block's transactions are needed only for native value: not where the coin is no asset (POL)
    const fetched = await Promise.all(heights.map((height) => this.getBlock(height, this.nativeAsset !== null)));
    const blocks: FullBlock[] = [];
    for (const block of fetched) {
      if (block === null || block.hash === null || block.number === null) break;
      const previous = blocks[blocks.length - 1];
      if (previous && block.parentHash !== previous.hash) throw new EvmChainMovedError(`block ${block.number} does not follow block ${previous.number} (a reorg while reading)`);
      blocks.push(block);
    }
    if (blocks.length === 0) return [];

    const logs = await this.tokenLogs(blocks);
    const byHash = new Map(blocks.map((block) => [(block.hash as string).toLowerCase(), block]));
    for (const log of logs) {
      if (!byHash.has(log.blockHash)) throw new EvmChainMovedError(`a log of block ${log.blockNumber} names block ${log.blockHash}, not the one read (a reorg while reading)`);
    }

    // every recipient in the batch, asked about in one call
    const recipients = new Set<string>();
    const natives: { tx: Transaction; block: FullBlock }[] = [];
    if (this.nativeAsset !== null) {
      for (const block of blocks) {
        for (const tx of block.transactions) {
          if (typeof tx !== 'string' && tx.to && tx.value > 0n) {
            natives.push({ tx, block });
            recipients.add(tx.to.toLowerCase());
          }
        }
      }
    }
    for (const log of logs) recipients.add(log.args.to);
    if (recipients.size === 0) return blocks.map((block) => this.scanned(block, []));
    // in lower case: an EIP-55 checksum (a Keccak hash) for each of thousands of recipients took
    // longer than reading them (bench:chains); only the matched ones are checksummed, below
    const answer = await watched.watched('evm', [...recipients]);
    const watchedSet = new Set([...answer].map((address) => address.toLowerCase()));
    const matchedNatives = natives.filter(({ tx }) => watchedSet.has((tx.to as Address).toLowerCase()));
    const matchedLogs = logs.filter((log) => watchedSet.has(log.args.to.toLowerCase()));
    if (matchedNatives.length === 0 && matchedLogs.length === 0) return blocks.map((block) => this.scanned(block, []));

    const receipts = await this.receipts([...matchedNatives.map(({ tx }) => tx.hash), ...matchedLogs.map((log) => log.transactionHash)]);
    const found = new Map<string, { order: number; transfer: ObservedTransfer }[]>();
    const add = (block: FullBlock, order: number, transfer: ObservedTransfer) => {
      const list = found.get((block.hash as string).toLowerCase()) ?? [];
      list.push({ order, transfer });
      found.set((block.hash as string).toLowerCase(), list);
    };
    for (const { tx, block } of matchedNatives) {
      const receipt = this.receiptIn(receipts, tx.hash, block.hash as Hash);
      if (receipt.status !== 'success') continue;
      add(block, (tx.transactionIndex ?? 0) * 2 ** 20, {
        network: this.network,
        txHash: tx.hash.toLowerCase(),
        index: -1,
        asset: this.nativeAsset as AssetCode,
        amount: tx.value,
        to: this.viem.getAddress(tx.to as Address),
        from: this.viem.getAddress(tx.from),
        block: blockRef(block),
      });
    }
    for (const log of matchedLogs) {
      const block = byHash.get(log.blockHash) as FullBlock;
      const receipt = this.receiptIn(receipts, log.transactionHash, log.blockHash);
      const first = receipt.logs[0]?.logIndex ?? log.logIndex;
      add(block, log.transactionIndex * 2 ** 20 + 1 + (log.logIndex - first), {
        network: this.network,
        txHash: log.transactionHash.toLowerCase(),
        index: log.logIndex - first,
        asset: this.tokens.get(log.address.toLowerCase()) as AssetCode,
        amount: log.args.value,
        to: this.viem.getAddress(log.args.to),
        from: this.viem.getAddress(log.args.from),
        block: blockRef(block),
      });
    }
    return blocks.map((block) =>
      this.scanned(
        block,
        (found.get((block.hash as string).toLowerCase()) ?? []).sort((a, b) => a.order - b.order).map((entry) => entry.transfer),
      ),
    );
  }

  /** Transfer logs of the tokens in `blocks` (consecutive): by block hash for one, by range for several. */
  private async tokenLogs(blocks: readonly FullBlock[]): Promise<TokenLog[]> {
    if (this.tokenAddresses.length === 0) return [];
    const query = { address: this.tokenAddresses, topics: [TRANSFER_TOPIC] as Hex[] };
    const first = blocks[0];
    const last = blocks[blocks.length - 1];
    const raw = await this.client.request({
      method: 'eth_getLogs',
      params: [
        blocks.length === 1
          ? { ...query, blockHash: first.hash as Hash }
          : { ...query, fromBlock: `0x${(first.number as bigint).toString(16)}`, toBlock: `0x${(last.number as bigint).toString(16)}` },
      ],
    });
    const logs: TokenLog[] = [];
    for (const log of raw) {
      // an ERC-20 Transfer has 3 topics and a 32-byte amount (an ERC-721 Transfer has 4 topics)
      if (log.removed || log.topics.length !== 3 || log.data.length !== 66) continue;
      if (!ADDRESS_TOPIC.test(log.topics[1]) || !ADDRESS_TOPIC.test(log.topics[2])) continue;
      if (log.blockHash === null || log.blockNumber === null || log.transactionHash === null || log.transactionIndex === null || log.logIndex === null) continue;
      logs.push({
        address: log.address,
        blockHash: log.blockHash.toLowerCase() as Hash,
        blockNumber: BigInt(log.blockNumber),
        transactionHash: log.transactionHash.toLowerCase() as Hash,
        transactionIndex: Number(log.transactionIndex),
        logIndex: Number(log.logIndex),
        args: { from: `0x${log.topics[1].slice(26).toLowerCase()}`, to: `0x${log.topics[2].slice(26).toLowerCase()}`, value: BigInt(log.data) },
      });
    }
    return logs;
  }

  private async receipts(hashes: readonly Hash[]): Promise<Map<string, TransactionReceipt>> {
    const unique = [...new Set(hashes)];
    const receipts = await Promise.all(unique.map((hash) => this.client.getTransactionReceipt({ hash })));
    return new Map(receipts.map((receipt) => [receipt.transactionHash.toLowerCase(), receipt]));
  }

  private receiptIn(receipts: ReadonlyMap<string, TransactionReceipt>, txHash: Hash, blockHash: Hash): TransactionReceipt {
    const receipt = receipts.get(txHash.toLowerCase());
    if (!receipt || receipt.blockHash.toLowerCase() !== blockHash.toLowerCase()) {
      throw new EvmChainMovedError(`the receipt of ${txHash} is not in block ${blockHash} (a reorg while reading)`);
    }
    return receipt;
  }

  private scanned(block: FullBlock, transfers: ObservedTransfer[]): ScannedBlock {
    return { ...blockRef(block), parentHash: block.parentHash.toLowerCase(), transfers };
  }
}

/** Where a block read whole sits, and when it was made. */
function blockRef(block: FullBlock): BlockRef {
  return { height: Number(block.number), hash: (block.hash as string).toLowerCase(), time: Number(block.timestamp) };
}

/**
 * An EVM reader for `options.network`. viem is loaded here, on first use, so that processes
 * which only read the registry (the API) do not load it.
 */
export async function createEvmReader(options: EvmReaderOptions): Promise<EvmReader> {
  return new EvmReader(await loadViem(), options);
}
