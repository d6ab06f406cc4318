import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { newId } from '@lib/http';
import { WebhookDelivery, deliveryView } from '../../../delivery/delivery-store';
import { cannotManage } from '../../../domain/endpoint.decider';
import { API_VERSION, TEST_EVENT_TYPE, readsEventTypes } from '../../../domain/event-types';
import type { ApiEvent } from '../../../read/events.projector';
import { ManualSends } from '../manual-sends';
import { SendTestEventCommand } from './send-test-event.command';

/**
 * Sends a `webhook.test` event (data: the endpoint) from this process, through the same
 * SSRF-checked WebhookSender as the dispatcher, records the one attempt (trigger `test`) and
 * answers with the delivery. 404 for an unknown, deleted or foreign endpoint; 403 for one
 * subscribed to types the caller cannot read (decision 0013, addendum of 2026-11-29).
 */
@CommandHandler(SendTestEventCommand)
export class SendTestEventHandler implements ICommandHandler<SendTestEventCommand> {
  constructor(private readonly sends: ManualSends) {}

  async execute({ businessId, webhookId, actor, mode, readable }: SendTestEventCommand): Promise<WebhookDelivery> {
    const endpoint = await this.sends.endpoints.get(businessId, webhookId);
    if (!readsEventTypes(endpoint.event_types, readable)) throw cannotManage(endpoint.id);
    const at = this.sends.now();
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
    await this.sends.deliveries.insertTest({ id, business_id: businessId, webhook_id: endpoint.id, payload }, at);
    const result = await this.sends.send(endpoint.id, endpoint.url, payload.id, payload);
    return deliveryView(await this.sends.deliveries.recordTest(id, result, this.sends.now()));
  }
}
