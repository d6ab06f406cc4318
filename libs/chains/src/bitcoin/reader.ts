import type { NetworkId } from '../registry';
import type { ChainReader, MempoolSnapshot, PendingTransfer, ScannedBlock, WatchedAddresses } from '../watch';
import { BitcoinDecodeError, decodeBitcoinBlock } from './decode';
import { EsploraClient, type EsploraClientOptions } from './esplora';
import { watchedBitcoinBlockTransfers } from './match';
import type { BitcoinChain } from './network';

export interface BitcoinReaderOptions {
  /** The Esplora API to read: its base URL (BITCOIN_ESPLORA_URL), client options, or a client built already. */
  readonly esplora: string | EsploraClientOptions | EsploraClient;
  /** How output scripts spell as addresses (default mainnet). */
  readonly chain?: BitcoinChain;
  /** The registry network it reports on (default `bitcoin`). */
  readonly network?: NetworkId;
}

/**
 * ChainReader for Bitcoin over an Esplora API. A block is read as two requests — its hash at the
 * height (GET /block-height/:height), then its bytes by that hash (GET /block/:hash/raw) — so
 * the hash, parent hash and transfers always describe one block even when the chain reorganizes
 * between the two. The raw block is decoded here (header, transactions, merkle root checked) and
 * its hash compared with the one asked for; its outputs to watched addresses are the transfers.
 * Confirmations are counted by the watcher from heights (head − height + 1).
 *
 * Thin, as the seam asks: no state, no retries; every failure is thrown (EsploraError,
 * BitcoinDecodeError) for the watcher to retry.
 */
export class BitcoinReader implements ChainReader {
  readonly network: NetworkId;
  readonly esplora: EsploraClient;
  private readonly chain: BitcoinChain;

  constructor(options: BitcoinReaderOptions) {
    const { esplora } = options;
    this.esplora = esplora instanceof EsploraClient ? esplora : new EsploraClient(typeof esplora === 'string' ? { baseUrl: esplora } : esplora);
    this.chain = options.chain ?? 'mainnet';
    this.network = options.network ?? 'bitcoin';
  }

  head(): Promise<number> {
    return this.esplora.tipHeight();
  }

  blockHash(height: number): Promise<string | null> {
    return this.esplora.blockHashAtHeight(height);
  }

  /**
   * The address's transactions as the indexer knows them (GET /address/:address/txs, decision
   * 0023 addendum 2026-11-29): those in its mempool paying the address more than nothing, each
   * with its outputs to the address summed, and the hashes of the mined ones it lists.
   */
  async mempool(address: string): Promise<MempoolSnapshot> {
    const pending: PendingTransfer[] = [];
    const mined: string[] = [];
    for (const tx of await this.esplora.addressTransactions(address)) {
      if (tx.confirmed) {
        mined.push(tx.txid);
        continue;
      }
      const amount = tx.outputs.filter((o) => o.address === address).reduce((sum, o) => sum + o.value, 0n);
      if (amount > 0n) pending.push({ network: this.network, txHash: tx.txid, asset: 'BTC', amount, to: address });
    }
    return { network: this.network, address, pending, mined };
  }

  async block(height: number, watched: WatchedAddresses): Promise<ScannedBlock | null> {
    const hash = await this.esplora.blockHashAtHeight(height);
    if (hash === null) return null;
    const raw = await this.esplora.rawBlock(hash);
    // the hash was canonical a moment ago and the indexer no longer has its bytes: treat it as a
    // height it has nothing at yet, and let the watcher ask again
    if (raw === null) return null;
    const block = decodeBitcoinBlock(raw);
    if (block.hash !== hash) throw new BitcoinDecodeError(`asked for block ${hash} at height ${height}, got block ${block.hash}`);
    const transfers = await watchedBitcoinBlockTransfers(block, height, watched, { chain: this.chain, network: this.network });
    return { height, hash, time: block.time, parentHash: block.parentHash, transfers };
  }
}
