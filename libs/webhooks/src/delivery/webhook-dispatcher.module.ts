import { BeforeApplicationShutdown, Inject, Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { ProjectionRunner } from '@lib/projections';
import { sealClearSecrets } from '../app/secret-store';
import { serviceKek } from '@lib/wallets';
import { WebhookDispatcher } from './dispatcher';
import { WebhookSender, systemResolver } from './http-sender';

@Injectable()
class WebhookDispatcherLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private unsubscribe: (() => void) | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(WebhookDispatcher) private readonly dispatcher: WebhookDispatcher,
    private readonly projections: ProjectionRunner,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    this.dispatcher.start();
    // new deliveries are written by the events projection: look for them at once, not at the next poll
    this.unsubscribe = this.projections.onApplied((projection) => {
      if (projection === 'events') this.dispatcher.nudge();
    });
  }

  /** Before the store closes: attempts in flight are recorded, nothing new is claimed. */
  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    await this.dispatcher.stop();
  }
}

/**
 * Runs the webhook dispatcher in a process that runs workers (ROLE worker or all): the worker's
 * module and the app both import it (it does nothing with ROLE=api). Its KEK is the service's
 * (serviceKek); at start it seals the signing secrets still kept in clear (sealClearSecrets).
 */
@Module({
  providers: [
    {
      provide: WebhookDispatcher,
      useFactory: async (db: Database, config: AppConfig) => {
        const logger = new Logger('WebhookDispatcher');
        const kek = serviceKek(config);
        // secrets written in clear before migration 023: sealed before anything signs with them
        const sealed = await sealClearSecrets(db, kek);
        if (sealed > 0) logger.log(`sealed ${sealed} webhook signing secret(s) kept in clear under key-encryption key ${kek.id}`);
        return new WebhookDispatcher(db, {
          kek,
          sender: new WebhookSender({ allowPrivateUrls: config.webhookAllowPrivateUrls, resolver: systemResolver }),
          onError: (error, deliveryId) => logger.warn(`${deliveryId ?? 'poll'}: ${error instanceof Error ? error.message : String(error)}`),
          // refused by this process's URL policy (WEBHOOK_ALLOW_PRIVATE_URLS): said, with the endpoint, not only recorded on the delivery
          onRefused: ({ deliveryId, webhookId, reason }) =>
            logger.warn(`webhook ${webhookId}: delivery ${deliveryId} not sent, ${reason}${config.webhookAllowPrivateUrls ? '' : ' (WEBHOOK_ALLOW_PRIVATE_URLS is false in this process)'}`),
        });
      },
      inject: [DATABASE, APP_CONFIG],
    },
    WebhookDispatcherLifecycle,
  ],
  exports: [WebhookDispatcher],
})
export class WebhookDispatcherModule {}
