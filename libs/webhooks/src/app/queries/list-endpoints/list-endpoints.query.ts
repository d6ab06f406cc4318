import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { WebhookEndpoint } from '../../../read/views';
import type { RawQuery } from '../query-params';

/** GET /webhooks: the business's endpoints, newest first; `query` holds `limit` and `cursor` only. */
export class ListEndpointsQuery extends Query<Page<WebhookEndpoint>> {
  constructor(
    readonly businessId: string,
    readonly query: RawQuery = {},
  ) {
    super();
  }
}
