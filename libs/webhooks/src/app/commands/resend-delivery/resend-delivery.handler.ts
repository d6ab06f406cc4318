import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { WebhookDelivery, deliveryView } from '../../../delivery/delivery-store';
import { cannotManage } from '../../../domain/endpoint.decider';
import { WebhookError } from '../../../domain/errors';
import { readsEventTypes } from '../../../domain/event-types';
import { DeliveryQueries } from '../../../read/delivery-queries';
import { ManualSends } from '../manual-sends';
import { ResendDeliveryCommand } from './resend-delivery.command';

/**
 * Sends the delivery's payload again (same `webhook-id`) from this process through the
 * SSRF-checked WebhookSender, to the endpoint as it is now, and records the attempt (trigger
 * `manual`). 404 for a delivery the caller may not read, or whose endpoint was deleted; 403 when
 * the endpoint is subscribed to types the caller cannot read (decision 0013, addendum of 2026-11-29).
 */
@CommandHandler(ResendDeliveryCommand)
export class ResendDeliveryHandler implements ICommandHandler<ResendDeliveryCommand> {
  private readonly deliveries: DeliveryQueries;

  constructor(
    @Inject(DATABASE) db: Sql,
    private readonly sends: ManualSends,
  ) {
    this.deliveries = new DeliveryQueries(db);
  }

  async execute({ businessId, deliveryId, segments }: ResendDeliveryCommand): Promise<WebhookDelivery> {
    const row = await this.deliveries.row(businessId, deliveryId, segments);
    const endpoint = await this.sends.endpoints.row(businessId, row.webhook_id);
    if (!endpoint || endpoint.deleted_at) throw new WebhookError('not_found', `The webhook endpoint of delivery ${deliveryId} was deleted.`);
    if (!readsEventTypes(endpoint.event_types, segments)) throw cannotManage(endpoint.id);
    const result = await this.sends.send(row.webhook_id, endpoint.url, row.event_id, row.payload);
    return deliveryView((await this.sends.deliveries.recordOther(row.id, 'manual', result, this.sends.now()))!);
  }
}
