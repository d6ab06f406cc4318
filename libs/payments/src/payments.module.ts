import { Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { ProjectionRunner } from '@lib/projections';
import { TimerRunner, TimerStore } from '@lib/timers';
import { FixedRates, PaymentsApp, TIMER_KINDS } from './app';
import { PaymentsReactor } from './payments-reactor';
import { PaymentsReadModel } from './read';

/**
 * The payments capability's background work: durable timers and the process manager's backstop.
 * In the API-only role nothing runs in the background: timers and the backstop belong to workers.
 */
@Injectable()
export class PaymentsWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private runner: TimerRunner | null = null;
  private reactor: PaymentsReactor | null = null;
  private readonly logger = new Logger('payments');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) private readonly db: Database,
    private readonly timers: TimerStore,
    private readonly app: PaymentsApp,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'api') return;
    const runner = new TimerRunner(this.timers, {
      pollMs: 250,
      batchSize: 1,
      onError: (error, timer) => this.logger.warn(`timer ${timer?.id ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`),
    });
    for (const kind of Object.values(TIMER_KINDS)) runner.on(kind, async (timer) => {
      await this.app.fire(timer);
    });
    runner.start();
    this.runner = runner;
    this.reactor = new PaymentsReactor(this.store, this.db, this.app, { onError: (error) => this.logger.error(`payments reactor: ${error instanceof Error ? error.stack : String(error)}`) });
    await this.reactor.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
    await this.reactor?.stop();
  }
}

/**
 * The payments capability's providers, shared by the API (commands, queries; apps/api adds the
 * HTTP routes in PaymentsHttpModule) and the worker (durable timers, the process manager's
 * backstop): both processes import this module.
 */
@Module({
  providers: [
    { provide: TimerStore, useFactory: (db: Database) => new TimerStore(db), inject: [DATABASE] },
    { provide: PaymentsReadModel, useFactory: (db: Database, config: AppConfig) => new PaymentsReadModel(db, { checkoutBaseUrl: config.checkoutBaseUrl }), inject: [DATABASE, APP_CONFIG] },
    {
      provide: PaymentsApp,
      useFactory: (store: EventStore, timers: TimerStore, projections: ProjectionRunner, read: PaymentsReadModel, config: AppConfig) =>
        new PaymentsApp(store, timers, projections, read, new FixedRates(), { quoteTtlMs: config.quoteTtlMs, feeRateBps: config.feeRateBps }),
      inject: [EVENT_STORE, TimerStore, ProjectionRunner, PaymentsReadModel, APP_CONFIG],
    },
    PaymentsWorker,
  ],
  exports: [PaymentsApp, PaymentsReadModel, TimerStore],
})
export class PaymentsCoreModule {}
