import { DynamicModule, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import { Database } from '@lib/database';
import { EVENT_STORE, EventStore } from '@lib/eventstore';
import { ProjectionRunner } from '@lib/projections';
import {
  EventQueries,
  Resolver,
  WebhookDeliveryService,
  WebhookEndpointService,
  WebhookSecretStore,
  WebhookSender,
  systemResolver,
  webhookEndpointsProjector,
} from '@lib/webhooks';
import { EventsController } from './events.controller';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhooksController } from './webhooks.controller';

/** Resolves webhook host names for test events and resends sent from the API (default: the system's). */
export const WEBHOOK_RESOLVER = Symbol('WEBHOOK_RESOLVER');

/**
 * The webhook routes (spec §4, §6): endpoints, the delivery log, test events and resends, and
 * events. Reads need the `webhook_endpoints` and `events` projections running somewhere (a
 * worker, or this process when it runs them); writes wait for `webhook_endpoints` by polling
 * its checkpoint, so they work whichever process runs it.
 */
@Module({
  controllers: [WebhooksController, WebhookDeliveriesController, EventsController],
  providers: [
    { provide: WEBHOOK_RESOLVER, useValue: systemResolver },
    {
      provide: WebhookSender,
      useFactory: (config: AppConfig, resolver: Resolver) => new WebhookSender({ allowPrivateUrls: config.webhookAllowPrivateUrls, resolver }),
      inject: [APP_CONFIG, WEBHOOK_RESOLVER],
    },
    { provide: WebhookSecretStore, useFactory: (db: Database) => new WebhookSecretStore(db), inject: [DATABASE] },
    {
      provide: WebhookEndpointService,
      useFactory: (store: EventStore, db: Database, secrets: WebhookSecretStore, config: AppConfig) =>
        // an unstarted runner's waitFor polls the checkpoint, wherever the projection runs
        new WebhookEndpointService(store, db, new ProjectionRunner(store, db, [webhookEndpointsProjector]), secrets, {
          allowPrivateUrls: config.webhookAllowPrivateUrls,
        }),
      inject: [EVENT_STORE, DATABASE, WebhookSecretStore, APP_CONFIG],
    },
    {
      provide: WebhookDeliveryService,
      useFactory: (db: Database, endpoints: WebhookEndpointService, sender: WebhookSender) => new WebhookDeliveryService(db, endpoints, sender),
      inject: [DATABASE, WebhookEndpointService, WebhookSender],
    },
    { provide: EventQueries, useFactory: (db: Database) => new EventQueries(db), inject: [DATABASE] },
  ],
  exports: [WebhookEndpointService, WebhookDeliveryService, EventQueries, WebhookSender],
})
export class WebhooksModule {
  /** The module with another resolver for test events and resends (tests: DNS answers of their choosing). */
  static withResolver(resolver: Resolver): DynamicModule {
    return { module: WebhooksModule, providers: [{ provide: WEBHOOK_RESOLVER, useValue: resolver }] };
  }
}
