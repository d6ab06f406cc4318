/**
 * Webhooks (spec §4, §6), in the shape of every capability:
 * - domain/   the endpoint decider, its events and stream category, errors, the event types catalogue;
 * - app/      the use cases (commands and queries) and the signing secrets;
 * - read/     the `webhook_endpoints` and `events` projections (with the outbox), views, queries,
 *             the API event sources;
 * - delivery/ getting deliveries out: dispatcher, HTTP sender, URL policy (SSRF), signing, retry
 *             schedule, delivery store, the dispatcher's Nest module.
 * `payment-events.source.ts` (the payment streams' API events) stays at the top, beside this file.
 */
import type { Projector } from '@lib/projections';
import { businessEventSource } from './read/business-events.source';
import { webhookEndpointsProjector } from './read/endpoints.projector';
import type { ApiEventSource } from './read/event-source';
import { eventsProjector } from './read/events.projector';

export * from './domain';
export * from './app';
export * from './read';
export * from './delivery';
export * from './payment-events.source';

/**
 * The projectors webhooks need, to register in @lib/wiring's allProjectors: `webhook_endpoints` and `events`
 * (with the outbox). `sources` are the API event sources: business streams by default; add the
 * payment source there.
 */
export function webhookProjectors(sources: readonly ApiEventSource[] = [businessEventSource]): Projector[] {
  return [webhookEndpointsProjector, eventsProjector(sources)];
}
