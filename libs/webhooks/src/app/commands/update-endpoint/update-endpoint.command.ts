import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WebhookEndpoint } from '../../../read/views';

/** Change an endpoint: only what is sent; `input` is checked against UpdateWebhookBody. */
export class UpdateEndpointCommand extends Command<WebhookEndpoint> {
  constructor(
    readonly businessId: string,
    readonly webhookId: string,
    readonly input: unknown,
    /** The first segments of the event types the caller reads (a restricted key; `readableTypeSegments`), null for all. */
    readonly readable: readonly string[] | null,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
