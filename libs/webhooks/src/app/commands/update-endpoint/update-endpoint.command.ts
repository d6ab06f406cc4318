import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WebhookEndpoint } from '../../../read/views';

/** Change an endpoint: only what is sent; `input` is checked against UpdateWebhookBody. */
export class UpdateEndpointCommand extends Command<WebhookEndpoint> {
  constructor(
    readonly businessId: string,
    readonly webhookId: string,
    readonly input: unknown,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
