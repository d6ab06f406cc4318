import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AssetCode, BitcoinReader, ChainReader, ChainWatcher, ChainWatcherStatus, NetworkId, createEvmReader, createSolanaReader, errorText } from '@lib/chains';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import type { Database } from '@lib/database';
import { WalletAddressBook } from '@lib/wallets';
import { ChainTransfers } from './app/chain-transfers';

/**
 * The chain watchers of this process (issue 11, decision 0021): in the worker roles, one
 * ChainWatcher per network the configuration gives a node for, reading through its family's
 * reader, asking the wallets' address book which recipients are watched, reporting to the
 * payments' ChainTransfers. Each holds its network's lease, so any number of workers may run
 * this: one of them watches each network at a time. status() feeds /health and metrics.
 */
@Injectable()
export class ChainWatchers implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('chains');
  private watchers: ChainWatcher[] = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    private readonly sink: ChainTransfers,
    private readonly book: WalletAddressBook,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'api') return;
    for (const [network, url] of Object.entries(this.config.evmRpcUrls) as [NetworkId, string][]) {
      const tokens = this.config.evmTokens[network as keyof AppConfig['evmTokens']];
      const reader = await createEvmReader({ network, url, tokens: tokens ? (Object.entries(tokens) as [AssetCode, string][]).map(([asset, contract]) => ({ asset, contract })) : undefined });
      this.watchers.push(this.watcher(reader));
    }
    if (this.config.solanaRpcUrl) this.watchers.push(this.watcher(await createSolanaReader({ url: this.config.solanaRpcUrl })));
    if (this.config.bitcoinEsploraUrl) this.watchers.push(this.watcher(new BitcoinReader({ esplora: this.config.bitcoinEsploraUrl })));
    for (const watcher of this.watchers) watcher.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.watchers.map((w) => w.stop()));
    this.watchers = [];
  }

  /** Each network's watcher as it is now (empty in the API role). */
  status(): ChainWatcherStatus[] {
    return this.watchers.map((w) => w.status());
  }

  private watcher(reader: ChainReader): ChainWatcher {
    return new ChainWatcher({
      reader,
      watched: this.book,
      sink: this.sink,
      db: this.db,
      pollMs: this.config.chainPollMs,
      onError: (error) => this.logger.warn(`${reader.network}: ${errorText(error)}`), // node URLs cut to their origin: a provider's key never reaches the log
      onReorg: (reorg) => this.logger.warn(`${reorg.network}: reorganisation of ${reorg.depth} blocks above ${reorg.ancestor ?? 'the remembered window'}; ${reorg.orphaned} transfers to check`),
    });
  }
}
