import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WebhookEndpoint } from '../../../read/views';

/** Delete an endpoint: no new deliveries, pending ones fail, its secrets are forgotten. */
export class DeleteEndpointCommand extends Command<WebhookEndpoint & { deleted: true }> {
  constructor(
    readonly businessId: string,
    readonly webhookId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
