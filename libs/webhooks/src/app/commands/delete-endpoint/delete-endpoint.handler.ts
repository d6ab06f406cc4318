import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, metadataFor } from '@lib/eventstore';
import { webhookEndpointDecider } from '../../../domain/endpoint.decider';
import { WebhookError } from '../../../domain/errors';
import { WEBHOOK_STREAM, isWebhookId } from '../../../domain/stream-categories';
import type { WebhookEndpoint } from '../../../read/views';
import { WebhookSecretStore } from '../../secret-store';
import { WEBHOOKS_OPTIONS, WebhooksOptions } from '../../webhooks-options';
import { decideContext, endpointOf } from '../endpoint-stream';
import { DeleteEndpointCommand } from './delete-endpoint.command';

/**
 * Decides the deletion on the endpoint's stream and appends it (CommandRunner), then forgets its
 * secrets. Answers the endpoint as it was, with `deleted: true`; 404 for an unknown, deleted or
 * foreign endpoint.
 */
@CommandHandler(DeleteEndpointCommand)
export class DeleteEndpointHandler implements ICommandHandler<DeleteEndpointCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly secrets: WebhookSecretStore,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: WebhooksOptions,
  ) {}

  async execute({ businessId, webhookId, meta }: DeleteEndpointCommand): Promise<WebhookEndpoint & { deleted: true }> {
    if (!isWebhookId(webhookId)) throw new WebhookError('not_found', `No webhook endpoint ${webhookId}.`);
    const result = await this.runner.run(
      webhookEndpointDecider,
      WEBHOOK_STREAM.stream(webhookId),
      { type: 'DeleteWebhookEndpoint', businessId, webhookId },
      { context: decideContext(this.options, webhookId), metadata: metadataFor(meta) },
    );
    await this.secrets.deleteEndpoint(webhookId);
    return { ...endpointOf(result.recorded, webhookId), deleted: true };
  }
}
