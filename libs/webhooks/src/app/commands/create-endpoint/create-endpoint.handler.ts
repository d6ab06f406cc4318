import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, EVENT_STORE, EventStore, metadataFor } from '@lib/eventstore';
import { newId, validateInput } from '@lib/http';
import { webhookEndpointDecider } from '../../../domain/endpoint.decider';
import { WEBHOOK_STREAM } from '../../../domain/stream-categories';
import { WebhookSecretStore, mintSecret, secretHint } from '../../secret-store';
import { WEBHOOKS_OPTIONS, WebhooksOptions, wallClock } from '../../webhooks-options';
import { decideContext, endpointFromStream } from '../endpoint-stream';
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
  constructor(
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly secrets: WebhookSecretStore,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: WebhooksOptions,
  ) {}

  async execute({ businessId, input, meta }: CreateEndpointCommand): Promise<WebhookEndpointWithSecret> {
    const body = await validateInput(CreateWebhookBody, input);
    const secret = mintSecret();
    const webhookId = newId('whk');
    let secretId: string | null = null;
    let recorded = false;
    try {
      await this.runner.run(
        webhookEndpointDecider,
        WEBHOOK_STREAM.stream(webhookId),
        {
          type: 'CreateWebhookEndpoint',
          businessId,
          url: body.url,
          eventTypes: body.event_types,
          description: body.description,
          enabled: body.enabled,
          secretHint: secretHint(secret),
        },
        {
          context: decideContext(this.options, webhookId),
          metadata: metadataFor(meta),
          newStream: true,
          beforeAppend: async () => {
            secretId = await this.secrets.reserveForNewEndpoint(businessId, webhookId, secret);
          },
          afterAppend: async (revision) => {
            recorded = true;
            await this.secrets.activate(secretId!, revision, (this.options.now ?? wallClock)());
          },
        },
      );
    } catch (error) {
      // a secret whose endpoint was not recorded is forgotten (a recorded one stays: the sweep's job)
      if (secretId && !recorded) await this.secrets.discard(secretId).catch(() => undefined);
      throw error;
    }
    return { ...(await endpointFromStream(this.store, webhookId)), secret };
  }
}
