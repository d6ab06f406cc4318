import { Global, Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { BusinessService } from '@lib/businesses';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { EVENT_STORE, EventStore, adapterFor } from '@lib/eventstore';
import { IdempotencyStore, SqlIdempotencyStore, createIdempotencyStore } from '@lib/idempotency';
import { DisableLinkCommand } from '@lib/links';
import { ProjectionRunner } from '@lib/projections';
import { RateLimiter, createRateLimiter } from '@lib/rate-limit';
import { onboarding } from '@lib/wiring';
import { OperationsModule, ServicePauses } from '@lib/operations';
import { AdminServer } from '../admin/admin-server';
import { AuthGuard } from '../auth/auth.guard';
import { IDEMPOTENCY_STORE, IdempotencyInterceptor } from './idempotency.interceptor';
import { Metrics } from '@lib/wiring';
import { NoBodyGuard } from './no-body.guard';
import { RATE_LIMITER, RateLimitGuard } from './rate-limit.guard';
import { ReadYourWritesInterceptor } from './read-your-writes.interceptor';

/**
 * Runs the admin endpoint for the operator CLI while this process owns the embedded store,
 * and closes the shared stores on shutdown.
 */
@Injectable()
class PlatformLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private admin: AdminServer | null = null;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly businesses: BusinessService,
    @Inject(IDEMPOTENCY_STORE) private readonly idempotency: IdempotencyStore,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly pauses: ServicePauses,
    private readonly bus: CommandBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // expired idempotency rows are reused in place; an hourly sweep keeps the table small
    if (this.idempotency instanceof SqlIdempotencyStore) {
      const store = this.idempotency;
      this.sweeper = setInterval(() => void store.purgeExpired().catch(() => undefined), 60 * 60 * 1000);
      this.sweeper.unref();
    }
    if (adapterFor(this.config) === 'embedded' && this.config.role === 'all') {
      this.admin = new AdminServer(this.businesses, this.config.dataDir ?? './data', this.pauses, (linkId, reason, actor) => this.bus.execute(new DisableLinkCommand(linkId, reason, { actor })));
      await this.admin.start();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.admin?.stop();
    await this.idempotency.close();
    await this.limiter.close();
  }
}

/** What every route shares: authentication, rate limits and idempotency (spec §5, §8). */
@Global()
@Module({
  imports: [OperationsModule],
  providers: [
    {
      provide: BusinessService,
      // a simulated business gets its wallet at once (onboarding; the wallets capability's CreateWalletHandler on the bus)
      useFactory: (store: EventStore, db: Database, projections: ProjectionRunner, bus: CommandBus) =>
        new BusinessService(store, db, projections, { afterCreate: onboarding((command) => bus.execute(command)) }),
      inject: [EVENT_STORE, DATABASE, ProjectionRunner, CommandBus],
    },
    {
      provide: IDEMPOTENCY_STORE,
      useFactory: (config: AppConfig, db: Database) => createIdempotencyStore({ redisUrl: config.redisUrl, db }),
      inject: [APP_CONFIG, DATABASE],
    },
    {
      provide: RATE_LIMITER,
      useFactory: (config: AppConfig) => createRateLimiter({ redisUrl: config.redisUrl }),
      inject: [APP_CONFIG],
    },
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: NoBodyGuard },
    { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
    { provide: APP_INTERCEPTOR, useClass: ReadYourWritesInterceptor },
    PlatformLifecycle,
    Metrics,
  ],
  exports: [BusinessService, IDEMPOTENCY_STORE, RATE_LIMITER, Metrics],
})
export class PlatformModule {}
