import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { mintSecret, secretHint } from '../../secret-store';
import { DEFAULT_ROTATION_GRACE_MS } from '../../webhooks-options';
import { EndpointWrites } from '../endpoint-stream';
import { RotateSecretCommand, RotatedEndpoint } from './rotate-secret.command';

/**
 * Decides the rotation on the endpoint's stream and appends it (CommandRunner), the new secret
 * stored pending before the append and made active after it, at the rotation's revision: the new
 * secret becomes current and, for the grace period (24 hours), deliveries carry the signatures
 * of both, space-separated (Standard Webhooks). 404 for an unknown, deleted or foreign endpoint.
 */
@CommandHandler(RotateSecretCommand)
export class RotateSecretHandler implements ICommandHandler<RotateSecretCommand> {
  constructor(private readonly endpoints: EndpointWrites) {}

  async execute({ businessId, webhookId, readable, meta }: RotateSecretCommand): Promise<RotatedEndpoint> {
    const secret = mintSecret();
    const graceUntil = new Date(this.endpoints.now().getTime() + (this.endpoints.options.rotationGraceMs ?? DEFAULT_ROTATION_GRACE_MS));
    const written = await this.endpoints.runWithNewSecret(
      webhookId,
      { type: 'RotateWebhookSecret', businessId, webhookId, secretHint: secretHint(secret), previousSecretExpiresAt: graceUntil, readable },
      meta,
      { storePending: () => this.endpoints.secrets.addPending(businessId, webhookId, secret), graceUntil: () => graceUntil },
    );
    return { ...(await this.endpoints.endpoint(written, webhookId)), secret, previous_secret_expires_at: graceUntil.toISOString() };
  }
}
