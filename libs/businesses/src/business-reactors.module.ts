import { Inject, Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { PAYMENT_STREAM } from '@lib/payments';
import { ReactorHost } from '@lib/projections';
import { BUSINESS_MAIL, BusinessMail } from './business-mail';
import { BusinessAlertsReactor } from './reactors/business-alerts.reactor';
import { ReferralPayoutsReactor } from './reactors/referral-payouts.reactor';

/**
 * The businesses capability's background work: alert e-mails and referral payouts, each a
 * Reactor on its own checkpoint (decision 0035), handed to the process's ReactorHost (which runs
 * them in worker roles only and stops them on shutdown).
 */
@Injectable()
export class BusinessReactors implements OnApplicationBootstrap {
  private readonly logger = new Logger('businesses');

  constructor(
    private readonly reactors: ReactorHost,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(BUSINESS_MAIL) private readonly mail: BusinessMail,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const onError = (what: string) => (error: unknown) => this.logger.warn(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    await this.reactors.run(new BusinessAlertsReactor(this.store, this.db, this.mail, PAYMENT_STREAM), onError('alert e-mails'));
    await this.reactors.run(new ReferralPayoutsReactor(this.store, PAYMENT_STREAM), onError('referral payouts'));
  }
}

@Module({ providers: [BusinessReactors], exports: [BusinessReactors] })
export class BusinessReactorsModule {}
