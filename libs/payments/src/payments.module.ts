import { LinkPayments } from './commands/open-checkout/link-payments';
import { Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE, watchedNetworks } from '@lib/core';
import { Database } from '@lib/database';
import { ProjectionRunner, ReactorHost, ScopedReadCache } from '@lib/projections';
import { TimerRunner, TimerStore } from '@lib/timers';
import { FixedRates, LiveRates, NoLiveRates } from '@lib/rates';
import { CardsModule } from '@lib/cards';
import { BusinessClock, CardAttempts, ChainReadThrough, PAYMENTS_SETTINGS, PAYMENT_RATES, PaymentAccess, PaymentRateSources, PaymentRates, PaymentStreams, PaymentsProcessManager, PaymentsSettings, TIMER_KINDS, TimerFiring } from './app';
import { PAYMENT_COMMAND_HANDLERS, PaymentUseCaseSteps } from './commands';
import { PaymentsReactor } from './payments-reactor';
import { PAYMENT_PAGES, PAYMENT_QUERY_HANDLERS } from './queries';
import { PAYMENTS_PROJECTION, PaymentsReadModel } from './read';
import { WalletsModule } from '@lib/wallets';
import { OperationsModule } from '@lib/operations';
import { registryWithTokens } from '@lib/chains';
import { ChainTransfers } from './app/chain-transfers';
import { ChainWatchers } from './chain-watching';

/**
 * The payments capability's background work: durable timers and the process manager's backstop.
 * In the API-only role nothing runs in the background: timers and the backstop belong to workers.
 */
@Injectable()
export class PaymentsWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private runner: TimerRunner | null = null;
  private readonly logger = new Logger('payments');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reactors: ReactorHost,
    private readonly timers: TimerStore,
    private readonly firing: TimerFiring,
    private readonly process: PaymentsProcessManager,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'api') return;
    const runner = new TimerRunner(this.timers, {
      pollMs: 250,
      batchSize: 1,
      onError: (error, timer) => this.logger.warn(`timer ${timer?.id ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`),
    });
    for (const kind of Object.values(TIMER_KINDS)) runner.on(kind, async (timer) => {
      await this.firing.fire(timer);
    });
    runner.start();
    this.runner = runner;
    await this.reactors.run(new PaymentsReactor(this.process), (error) => this.logger.error(`payments reactor: ${error instanceof Error ? error.stack : String(error)}`));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }
}

/**
 * The payments capability's providers, shared by the API (apps/api adds the HTTP routes in
 * PaymentsHttpModule, which send commands and queries on @nestjs/cqrs's buses) and the worker
 * (durable timers, the process manager's backstop): both processes import this module. One
 * handler per use case (commands/, queries/; decision 0014) over the pieces several share: the
 * streams (through CoreModule's CommandRunner), the process manager, timer firing, the business
 * clock, who may act on what, the rates quotes come from, and the steps the command handlers share (PaymentUseCaseSteps).
 */
@Module({
  imports: [WalletsModule, OperationsModule, CardsModule],
  providers: [
    { provide: TimerStore, useFactory: (db: Database) => new TimerStore(db), inject: [DATABASE] },
    { provide: PaymentsReadModel, useFactory: (db: Database, config: AppConfig) => new PaymentsReadModel(db, { checkoutBaseUrl: config.checkoutBaseUrl, checkoutRegistry: registryWithTokens(config.evmTokens) }), inject: [DATABASE, APP_CONFIG] },
    {
      provide: PAYMENT_PAGES,
      useFactory: (runner: ProjectionRunner, config: AppConfig) =>
        new ScopedReadCache(runner, PAYMENTS_PROJECTION, { maxBytes: config.readCacheMb * 1024 * 1024, maxAgeMs: config.readCacheMaxAgeMs }),
      inject: [ProjectionRunner, APP_CONFIG],
    },
    { provide: PAYMENTS_SETTINGS, useFactory: (config: AppConfig): PaymentsSettings => ({ quoteTtlMs: config.quoteTtlMs, feeRateBps: config.feeRateBps, liveNetworks: watchedNetworks(config), liveTokens: config.evmTokens }), inject: [APP_CONFIG] },
    // simulated businesses quote from the fixed table, live ones from the live source (decision 0020)
    {
      provide: PAYMENT_RATES,
      useFactory: (config: AppConfig): PaymentRateSources => ({
        simulated: new FixedRates(),
        live: config.ratesUrl === null ? new NoLiveRates() : new LiveRates({ baseUrl: config.ratesUrl, maxAgeMs: config.ratesMaxAgeMs }),
      }),
      inject: [APP_CONFIG],
    },
    PaymentRates,
    PaymentStreams,
    PaymentsProcessManager,
    TimerFiring,
    ChainReadThrough,
    BusinessClock,
    PaymentAccess,
    PaymentUseCaseSteps,
    LinkPayments,
    ...PAYMENT_COMMAND_HANDLERS,
    ...PAYMENT_QUERY_HANDLERS,
    PaymentsWorker,
    CardAttempts,
    ChainTransfers,
    ChainWatchers,
  ],
  exports: [CardsModule, PaymentsReadModel, TimerStore, PaymentStreams, PaymentsProcessManager, TimerFiring, BusinessClock, ChainTransfers, ChainWatchers],
})
export class PaymentsCoreModule {}
