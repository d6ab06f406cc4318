import { Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { TimeSource, wallTime } from '@lib/timers';
import { createLimitStore } from './create-limit-store';
import { LimitStore } from './limit-store';
import { PeopleLimits } from './people-limits';
import { SqlLimitStore } from './sql-limit-store';

export const LIMIT_STORE = Symbol('LIMIT_STORE');
/** The clock of the limits; a test app overrides it (`overrideProvider(LIMITS_TIME_SOURCE)`) to move time. */
export const LIMITS_TIME_SOURCE = Symbol('LIMITS_TIME_SOURCE');

/** Closes the store; without Redis, deletes forgotten rows hourly. */
@Injectable()
export class LimitsLifecycle implements OnApplicationShutdown {
  private readonly sweeper: NodeJS.Timeout | null;

  constructor(@Inject(LIMIT_STORE) private readonly store: LimitStore, @Inject(LIMITS_TIME_SOURCE) time: TimeSource) {
    this.sweeper = store instanceof SqlLimitStore ? setInterval(() => void store.purgeExpired(time().getTime()).catch(() => undefined), 60 * 60 * 1000) : null;
    this.sweeper?.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.store.close();
  }
}

/**
 * PeopleLimits (spec §8 per person, address or code limits) for the accounts capability: Redis
 * when REDIS_URL is set, the SQL database otherwise. Needs CoreModule (APP_CONFIG, DATABASE).
 */
@Module({
  providers: [
    { provide: LIMITS_TIME_SOURCE, useValue: wallTime },
    { provide: LIMIT_STORE, useFactory: (config: AppConfig, db: Database) => createLimitStore({ redisUrl: config.redisUrl, db }), inject: [APP_CONFIG, DATABASE] },
    { provide: PeopleLimits, useFactory: (store: LimitStore, time: TimeSource) => new PeopleLimits(store, { time }), inject: [LIMIT_STORE, LIMITS_TIME_SOURCE] },
    LimitsLifecycle,
  ],
  exports: [PeopleLimits, LIMIT_STORE, LIMITS_TIME_SOURCE],
})
export class LimitsModule {}
