import { validateInput } from '@lib/http';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { WebhookEndpoint } from '../../../read/views';
import { EndpointWrites } from '../endpoint-stream';
import { UpdateEndpointCommand } from './update-endpoint.command';
import { UpdateWebhookBody } from './update-endpoint.dto';

/**
 * Validates the input, decides the change on the endpoint's stream and appends it at the
 * revision read (CommandRunner). A value equal to the current one records nothing, and a PATCH
 * that changes nothing appends nothing; 404 for an unknown, deleted or foreign endpoint; 403 for
 * an endpoint subscribed to, or a change to, types the caller cannot read (the decider).
 */
@CommandHandler(UpdateEndpointCommand)
export class UpdateEndpointHandler implements ICommandHandler<UpdateEndpointCommand> {
  constructor(private readonly endpoints: EndpointWrites) {}

  async execute({ businessId, webhookId, input, readable, meta }: UpdateEndpointCommand): Promise<WebhookEndpoint> {
    const body = await validateInput(UpdateWebhookBody, input ?? {});
    const written = await this.endpoints.run(webhookId, { type: 'UpdateWebhookEndpoint', businessId, webhookId, url: body.url, eventTypes: body.event_types, description: body.description, enabled: body.enabled, readable }, meta);
    return this.endpoints.endpoint(written, webhookId);
  }
}
