import { Query } from '@nestjs/cqrs';
import type { WebhookEndpoint } from '../../../read/views';

/** GET /webhooks/{id}: 404 not_found for an unknown, deleted or foreign endpoint. */
export class GetEndpointQuery extends Query<WebhookEndpoint> {
  constructor(
    readonly businessId: string,
    readonly webhookId: string,
  ) {
    super();
  }
}
