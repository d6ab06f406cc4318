import { Inject } from '@nestjs/common';
import { validateInput } from '@lib/http';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, EVENT_STORE, EventStore, metadataFor } from '@lib/eventstore';
import { webhookEndpointDecider } from '../../../domain/endpoint.decider';
import { WebhookError } from '../../../domain/errors';
import { WEBHOOK_STREAM, isWebhookId } from '../../../domain/stream-categories';
import type { WebhookEndpoint } from '../../../read/views';
import { WEBHOOKS_OPTIONS, WebhooksOptions } from '../../webhooks-options';
import { decideContext, endpointFromStream } from '../endpoint-stream';
import { UpdateEndpointCommand } from './update-endpoint.command';
import { UpdateWebhookBody } from './update-endpoint.dto';

/**
 * Validates the input, decides the change on the endpoint's stream and appends it at the
 * revision read (CommandRunner). A value equal to the current one records nothing, and a PATCH
 * that changes nothing appends nothing; 404 for an unknown, deleted or foreign endpoint.
 */
@CommandHandler(UpdateEndpointCommand)
export class UpdateEndpointHandler implements ICommandHandler<UpdateEndpointCommand> {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: WebhooksOptions,
  ) {}

  async execute({ businessId, webhookId, input, meta }: UpdateEndpointCommand): Promise<WebhookEndpoint> {
    const body = await validateInput(UpdateWebhookBody, input ?? {});
    if (!isWebhookId(webhookId)) throw new WebhookError('not_found', `No webhook endpoint ${webhookId}.`);
    await this.runner.run(
      webhookEndpointDecider,
      WEBHOOK_STREAM.stream(webhookId),
      { type: 'UpdateWebhookEndpoint', businessId, webhookId, url: body.url, eventTypes: body.event_types, description: body.description, enabled: body.enabled },
      { context: decideContext(this.options, webhookId), metadata: metadataFor(meta) },
    );
    return endpointFromStream(this.store, webhookId);
  }
}
