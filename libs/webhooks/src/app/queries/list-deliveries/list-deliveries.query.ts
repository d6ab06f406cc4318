import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { WebhookDelivery } from '../../../delivery/delivery-store';
import type { RawQuery } from '../query-params';

/**
 * The delivery log, newest first: GET /webhook_deliveries (every endpoint of the business,
 * deleted ones included; filter `webhook_id`), or with `webhookId` GET /webhooks/{id}/deliveries
 * (404 for an unknown or deleted endpoint). Filters `status`, `event_type`, `event_id`,
 * `subject_id`; `limit`, `cursor`. `segments`: the first segments of the event types the caller
 * may read (a restricted key), null for all.
 */
export class ListDeliveriesQuery extends Query<Page<WebhookDelivery>> {
  constructor(
    readonly businessId: string,
    readonly query: RawQuery,
    readonly segments: string[] | null,
    readonly webhookId: string | null = null,
  ) {
    super();
  }
}
