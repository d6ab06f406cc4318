import { DynamicModule, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { Resolver, WEBHOOKS_OPTIONS, WEBHOOK_HANDLERS, WebhookSecretStore, WebhookSender, WebhooksOptions, systemResolver } from '@lib/webhooks';
import { serviceKek } from '@lib/wallets';
import { EventsController } from './events.controller';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhooksController } from './webhooks.controller';

/** Resolves webhook host names for test events and resends sent from the API (default: the system's). */
export const WEBHOOK_RESOLVER = Symbol('WEBHOOK_RESOLVER');

/**
 * The webhook routes (spec §4, §6): endpoints, the delivery log, test events and resends, and
 * events, and the webhooks use cases they send on the command and query buses (WEBHOOK_HANDLERS,
 * libs/webhooks/src/app), with what those handlers need here. Reads need the `webhook_endpoints`
 * and `events` projections running somewhere (a worker, or this process); writes wait for the
 * read models through the CommandRunner, which polls their checkpoints when this process does
 * not run them.
 */
@Module({
  controllers: [WebhooksController, WebhookDeliveriesController, EventsController],
  providers: [
    ...WEBHOOK_HANDLERS,
    { provide: WEBHOOK_RESOLVER, useValue: systemResolver },
    {
      provide: WebhookSender,
      useFactory: (config: AppConfig, resolver: Resolver) => new WebhookSender({ allowPrivateUrls: config.webhookAllowPrivateUrls, resolver }),
      inject: [APP_CONFIG, WEBHOOK_RESOLVER],
    },
    {
      // sealed under the service's KEK (as TOTP secrets are); the secrets still in clear (written before migration 023) sealed at start
      provide: WebhookSecretStore,
      useFactory: async (db: Database, config: AppConfig) => {
        const secrets = new WebhookSecretStore(db, serviceKek(config));
        await secrets.sealClearSecrets();
        return secrets;
      },
      inject: [DATABASE, APP_CONFIG],
    },
    { provide: WEBHOOKS_OPTIONS, useFactory: (config: AppConfig): WebhooksOptions => ({ allowPrivateUrls: config.webhookAllowPrivateUrls }), inject: [APP_CONFIG] },
  ],
})
export class WebhooksModule {
  /** The module with another resolver for test events and resends (tests: DNS answers of their choosing). */
  static withResolver(resolver: Resolver): DynamicModule {
    return { module: WebhooksModule, providers: [{ provide: WEBHOOK_RESOLVER, useValue: resolver }] };
  }
}
