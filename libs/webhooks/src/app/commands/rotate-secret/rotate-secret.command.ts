import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { WebhookEndpointWithSecret } from '../create-endpoint/create-endpoint.command';

export type RotatedEndpoint = WebhookEndpointWithSecret & { previous_secret_expires_at: string };

/** Rotate an endpoint's signing secret: the new one is in the answer, once. */
export class RotateSecretCommand extends Command<RotatedEndpoint> {
  constructor(
    readonly businessId: string,
    readonly webhookId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
