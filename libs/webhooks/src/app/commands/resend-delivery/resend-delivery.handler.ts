import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { DeliveryStore, WebhookDelivery, deliveryView } from '../../../delivery/delivery-store';
import { WebhookSender } from '../../../delivery/http-sender';
import { WebhookError } from '../../../domain/errors';
import { DeliveryQueries } from '../../../read/delivery-queries';
import { EndpointQueries } from '../../../read/endpoint-queries';
import { WebhookSecretStore } from '../../secret-store';
import { WEBHOOKS_OPTIONS, WebhooksOptions, wallClock } from '../../webhooks-options';
import { signingSecrets } from '../signing-secrets';
import { ResendDeliveryCommand } from './resend-delivery.command';

/**
 * Sends the delivery's payload again (same `webhook-id`) from this process through the
 * SSRF-checked WebhookSender, to the endpoint as it is now, and records the attempt (trigger
 * `manual`). 404 for a delivery the caller may not read, or whose endpoint was deleted.
 */
@CommandHandler(ResendDeliveryCommand)
export class ResendDeliveryHandler implements ICommandHandler<ResendDeliveryCommand> {
  private readonly store: DeliveryStore;
  private readonly deliveries: DeliveryQueries;
  private readonly endpoints: EndpointQueries;

  constructor(
    @Inject(DATABASE) db: Sql,
    private readonly sender: WebhookSender,
    private readonly secrets: WebhookSecretStore,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: WebhooksOptions,
  ) {
    this.store = new DeliveryStore(db);
    this.deliveries = new DeliveryQueries(db);
    this.endpoints = new EndpointQueries(db);
  }

  async execute({ businessId, deliveryId, segments }: ResendDeliveryCommand): Promise<WebhookDelivery> {
    const row = await this.deliveries.row(businessId, deliveryId, segments);
    const endpoint = await this.endpoints.row(businessId, row.webhook_id);
    if (!endpoint || endpoint.deleted_at) throw new WebhookError('not_found', `The webhook endpoint of delivery ${deliveryId} was deleted.`);
    const result = await this.sender.send({ url: endpoint.url, eventId: row.event_id, body: JSON.stringify(row.payload), secrets: await signingSecrets(this.secrets, row.webhook_id) });
    return deliveryView((await this.store.recordOther(row.id, 'manual', result, (this.options.now ?? wallClock)()))!);
  }
}
