import { Command } from '@nestjs/cqrs';
import type { WebhookDelivery } from '../../../delivery/delivery-store';
import type { EventActor } from '../../../read/event-source';

/** Send a `webhook.test` event to an endpoint now (enabled or not): one attempt, no retries. */
export class SendTestEventCommand extends Command<WebhookDelivery> {
  constructor(
    readonly businessId: string,
    readonly webhookId: string,
    /** Who asks (the envelope's actor) and in which mode (the envelope's mode). */
    readonly actor: EventActor,
    readonly mode: 'live' | 'test',
    /** The first segments of the event types the caller reads (a restricted key), null for all. */
    readonly readable: readonly string[] | null,
  ) {
    super();
  }
}
