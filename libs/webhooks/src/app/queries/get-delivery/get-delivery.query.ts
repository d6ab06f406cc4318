import { Query } from '@nestjs/cqrs';
import type { WebhookDelivery } from '../../../delivery/delivery-store';

/** GET /webhook_deliveries/{id}: with every attempt, the last request headers and the payload. */
export class GetDeliveryQuery extends Query<WebhookDelivery> {
  constructor(
    readonly businessId: string,
    readonly deliveryId: string,
    /** The first segments of the event types the caller may read (a restricted key), null for all. */
    readonly segments: string[] | null,
  ) {
    super();
  }
}
