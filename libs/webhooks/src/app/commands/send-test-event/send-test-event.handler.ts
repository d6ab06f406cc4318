import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { newId } from '@lib/http';
import { DeliveryStore, WebhookDelivery, deliveryView } from '../../../delivery/delivery-store';
import { WebhookSender } from '../../../delivery/http-sender';
import { API_VERSION, TEST_EVENT_TYPE } from '../../../domain/event-types';
import { EndpointQueries } from '../../../read/endpoint-queries';
import type { ApiEvent } from '../../../read/events.projector';
import { WebhookSecretStore } from '../../secret-store';
import { WEBHOOKS_OPTIONS, WebhooksOptions, wallClock } from '../../webhooks-options';
import { signingSecrets } from '../signing-secrets';
import { SendTestEventCommand } from './send-test-event.command';

/**
 * Sends a `webhook.test` event (data: the endpoint) from this process, through the same
 * SSRF-checked WebhookSender as the dispatcher, records the one attempt (trigger `test`) and
 * answers with the delivery. 404 for an unknown, deleted or foreign endpoint.
 */
@CommandHandler(SendTestEventCommand)
export class SendTestEventHandler implements ICommandHandler<SendTestEventCommand> {
  private readonly deliveries: DeliveryStore;
  private readonly endpoints: EndpointQueries;

  constructor(
    @Inject(DATABASE) db: Sql,
    private readonly sender: WebhookSender,
    private readonly secrets: WebhookSecretStore,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: WebhooksOptions,
  ) {
    this.deliveries = new DeliveryStore(db);
    this.endpoints = new EndpointQueries(db);
  }

  async execute({ businessId, webhookId, actor, mode }: SendTestEventCommand): Promise<WebhookDelivery> {
    const now = this.options.now ?? wallClock;
    const endpoint = await this.endpoints.get(businessId, webhookId);
    const at = now();
    const payload: ApiEvent = {
      id: newId('evt'),
      kind: 'event',
      type: TEST_EVENT_TYPE,
      subject: { kind: 'webhook', id: endpoint.id },
      data: endpoint as unknown as Record<string, unknown>,
      actor,
      mode,
      api_version: API_VERSION,
      created_at: at.toISOString(),
    };
    const id = newId('dlv');
    await this.deliveries.insertTest({ id, business_id: businessId, webhook_id: endpoint.id, payload }, at);
    const result = await this.sender.send({ url: endpoint.url, eventId: payload.id, body: JSON.stringify(payload), secrets: await signingSecrets(this.secrets, endpoint.id) });
    return deliveryView(await this.deliveries.recordTest(id, result, now()));
  }
}
