export * from './business-events.source';
export * from './delivery-store';
export * from './delivery.service';
export * from './dispatcher';
export * from './endpoint.decider';
export * from './endpoint.events';
export * from './endpoint.service';
export * from './endpoints.projector';
export * from './event-queries';
export * from './event-source';
export * from './event-types';
export * from './events.projector';
export * from './http-sender';
export * from './secret-store';
export * from './signing';
export * from './url-policy';
export * from './views';
export * from './webhook-dispatcher.module';

import type { Projector } from '@lib/projections';
import { businessEventSource } from './business-events.source';
export * from './payment-events.source';
import { webhookEndpointsProjector } from './endpoints.projector';
import type { ApiEventSource } from './event-source';
import { eventsProjector } from './events.projector';

/**
 * The projectors webhooks need, to register in @lib/wiring's allProjectors: `webhook_endpoints` and `events`
 * (with the outbox). `sources` are the API event sources: business streams by default; add the
 * payment source there.
 */
export function webhookProjectors(sources: readonly ApiEventSource[] = [businessEventSource]): Projector[] {
  return [webhookEndpointsProjector, eventsProjector(sources)];
}
