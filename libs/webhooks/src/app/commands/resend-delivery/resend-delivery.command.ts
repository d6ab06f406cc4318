import { Command } from '@nestjs/cqrs';
import type { WebhookDelivery } from '../../../delivery/delivery-store';

/**
 * Send a delivery again now (trigger `manual`): success makes it `succeeded` and ends its
 * retries; failure changes neither its status nor its schedule. `segments`: the first segments of
 * the event types the caller may read (a restricted key), null for all.
 */
export class ResendDeliveryCommand extends Command<WebhookDelivery> {
  constructor(
    readonly businessId: string,
    readonly deliveryId: string,
    readonly segments: string[] | null,
  ) {
    super();
  }
}
