import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { WebhookEndpoint } from '../../../read/views';
import { EndpointWrites, endpointOf } from '../endpoint-stream';
import { DeleteEndpointCommand } from './delete-endpoint.command';

/**
 * Decides the deletion on the endpoint's stream and appends it (CommandRunner), then forgets its
 * secrets. Answers the endpoint as it was, with `deleted: true`; 404 for an unknown, deleted or
 * foreign endpoint.
 */
@CommandHandler(DeleteEndpointCommand)
export class DeleteEndpointHandler implements ICommandHandler<DeleteEndpointCommand> {
  constructor(private readonly endpoints: EndpointWrites) {}

  async execute({ businessId, webhookId, meta }: DeleteEndpointCommand): Promise<WebhookEndpoint & { deleted: true }> {
    const result = await this.endpoints.run(webhookId, { type: 'DeleteWebhookEndpoint', businessId, webhookId }, meta);
    await this.endpoints.secrets.deleteEndpoint(webhookId);
    return { ...endpointOf(result.recorded, webhookId), deleted: true };
  }
}
