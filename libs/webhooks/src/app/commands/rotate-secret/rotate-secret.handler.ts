import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, EVENT_STORE, EventStore, metadataFor } from '@lib/eventstore';
import { webhookEndpointDecider } from '../../../domain/endpoint.decider';
import { WebhookError } from '../../../domain/errors';
import { WEBHOOK_STREAM, isWebhookId } from '../../../domain/stream-categories';
import { WebhookSecretStore, mintSecret, secretHint } from '../../secret-store';
import { DEFAULT_ROTATION_GRACE_MS, WEBHOOKS_OPTIONS, WebhooksOptions, wallClock } from '../../webhooks-options';
import { decideContext, endpointFromStream } from '../endpoint-stream';
import { RotateSecretCommand, RotatedEndpoint } from './rotate-secret.command';

/**
 * Decides the rotation on the endpoint's stream and appends it (CommandRunner), the new secret
 * stored pending before the append and made active after it, at the rotation's revision: the new
 * secret becomes current and, for the grace period (24 hours), deliveries carry the signatures
 * of both, space-separated (Standard Webhooks). 404 for an unknown, deleted or foreign endpoint.
 */
@CommandHandler(RotateSecretCommand)
export class RotateSecretHandler implements ICommandHandler<RotateSecretCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly secrets: WebhookSecretStore,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: WebhooksOptions,
  ) {}

  async execute({ businessId, webhookId, meta }: RotateSecretCommand): Promise<RotatedEndpoint> {
    if (!isWebhookId(webhookId)) throw new WebhookError('not_found', `No webhook endpoint ${webhookId}.`);
    const secret = mintSecret();
    const graceUntil = new Date((this.options.now ?? wallClock)().getTime() + (this.options.rotationGraceMs ?? DEFAULT_ROTATION_GRACE_MS));
    let secretId: string | null = null;
    let recorded = false;
    try {
      await this.runner.run(
        webhookEndpointDecider,
        WEBHOOK_STREAM.stream(webhookId),
        { type: 'RotateWebhookSecret', businessId, webhookId, secretHint: secretHint(secret), previousSecretExpiresAt: graceUntil },
        {
          context: decideContext(this.options, webhookId),
          metadata: metadataFor(meta),
          // once, however many times a conflict makes the runner decide again
          beforeAppend: async () => {
            secretId ??= await this.secrets.addPending(businessId, webhookId, secret);
          },
          afterAppend: async (revision) => {
            recorded = true;
            await this.secrets.activate(secretId!, revision, graceUntil);
          },
        },
      );
    } catch (error) {
      if (secretId && !recorded) await this.secrets.discard(secretId).catch(() => undefined);
      throw error;
    }
    return { ...(await endpointFromStream(this.store, webhookId)), secret, previous_secret_expires_at: graceUntil.toISOString() };
  }
}
