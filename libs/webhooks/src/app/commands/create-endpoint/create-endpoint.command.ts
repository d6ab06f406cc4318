import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WebhookEndpoint } from '../../../read/views';

/** The answer of create and rotate: the endpoint and its whole secret, shown this once. */
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string };

/** Create a webhook endpoint for a business; `input` is checked against CreateWebhookBody. */
export class CreateEndpointCommand extends Command<WebhookEndpointWithSecret> {
  constructor(
    readonly businessId: string,
    readonly input: unknown,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
