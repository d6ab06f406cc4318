import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { newId, validateInput } from '@lib/http';
import { mintSecret, secretHint } from '../../secret-store';
import { EndpointWrites } from '../endpoint-stream';
import { CreateEndpointCommand, WebhookEndpointWithSecret } from './create-endpoint.command';
import { CreateWebhookBody } from './create-endpoint.dto';

/**
 * Validates the input, decides the endpoint on a new `webhook-<whk_id>` stream and appends it
 * (CommandRunner). Its secret is in the answer and, besides, only in webhook_secrets: written
 * pending before the append (where the limit of endpoints per business is counted: 409
 * webhook_limit) and made active after it, so no delivery is ever signed with a secret whose
 * endpoint was not recorded.
 */
@CommandHandler(CreateEndpointCommand)
export class CreateEndpointHandler implements ICommandHandler<CreateEndpointCommand> {
  constructor(private readonly endpoints: EndpointWrites) {}

  async execute({ businessId, input, readable, meta }: CreateEndpointCommand): Promise<WebhookEndpointWithSecret> {
    const body = await validateInput(CreateWebhookBody, input);
    const secret = mintSecret();
    const webhookId = newId('whk');
    const written = await this.endpoints.runWithNewSecret(
      webhookId,
      {
        type: 'CreateWebhookEndpoint',
        businessId,
        url: body.url,
        eventTypes: body.event_types,
        description: body.description,
        enabled: body.enabled,
        secretHint: secretHint(secret),
        readable,
      },
      meta,
      { storePending: () => this.endpoints.secrets.reserveForNewEndpoint(businessId, webhookId, secret), graceUntil: () => this.endpoints.now() },
      { newStream: true },
    );
    return { ...(await this.endpoints.endpoint(written, webhookId)), secret };
  }
}
