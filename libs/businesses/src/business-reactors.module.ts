import { Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { PAYMENT_STREAM } from '@lib/payments';
import { BUSINESS_MAIL, BusinessMail } from './business-mail';
import { BusinessAlertsReactor } from './reactors/business-alerts.reactor';
import { ReferralPayoutsReactor } from './reactors/referral-payouts.reactor';

/**
 * The businesses capability's background work, in worker roles only: alert e-mails and referral
 * payouts, each a Reactor on its own checkpoint (decision 0035).
 */
@Injectable()
export class BusinessReactors implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('businesses');
  alerts: BusinessAlertsReactor | null = null;
  payouts: ReferralPayoutsReactor | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(BUSINESS_MAIL) private readonly mail: BusinessMail,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'api') return;
    const onError = (what: string) => (error: unknown) => this.logger.warn(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    this.alerts = new BusinessAlertsReactor(this.store, this.db, this.mail, PAYMENT_STREAM, { onError: onError('alert e-mails') });
    this.payouts = new ReferralPayoutsReactor(this.store, this.db, PAYMENT_STREAM, { onError: onError('referral payouts') });
    await this.alerts.start();
    await this.payouts.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.alerts?.stop();
    await this.payouts?.stop();
  }
}

@Module({ providers: [BusinessReactors], exports: [BusinessReactors] })
export class BusinessReactorsModule {}
