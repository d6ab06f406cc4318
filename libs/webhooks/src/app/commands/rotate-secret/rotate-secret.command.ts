import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WebhookEndpointWithSecret } from '../create-endpoint/create-endpoint.command';

/** The answer of a rotation: the endpoint, its new secret (shown this once), and until when the previous one still signs. */
export interface RotatedEndpoint extends WebhookEndpointWithSecret {
  previous_secret_expires_at: string;
}

/** Rotate an endpoint's signing secret: the new one is in the answer, once. */
export class RotateSecretCommand extends Command<RotatedEndpoint> {
  constructor(
    readonly businessId: string,
    readonly webhookId: string,
    /** The first segments of the event types the caller reads (a restricted key; `readableTypeSegments`), null for all. */
    readonly readable: readonly string[] | null,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
