import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WebhookEndpoint } from '../../../read/views';

/** The answer of create and rotate: the endpoint and its whole secret, shown this once. */
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string };

/** Create a webhook endpoint for a business; `input` is checked against CreateWebhookBody; subscribed only to types `readable` covers. */
export class CreateEndpointCommand extends Command<WebhookEndpointWithSecret> {
  constructor(
    readonly businessId: string,
    readonly input: unknown,
    /** The first segments of the event types the caller reads (a restricted key; `readableTypeSegments`), null for all. */
    readonly readable: readonly string[] | null,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
