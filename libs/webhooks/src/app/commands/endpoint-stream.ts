import type { EventStore, RecordedEvent } from '@lib/eventstore';
import type { WebhookDecideContext } from '../../domain/endpoint.decider';
import { WEBHOOK_STREAM } from '../../domain/stream-categories';
import { WebhookEndpoint, WebhookEndpointRows, webhookEndpointView } from '../../read/views';
import type { WebhooksOptions } from '../webhooks-options';

/** What an endpoint decision may know of the world: the URL policy and the endpoint's id. */
export function decideContext(options: WebhooksOptions, webhookId: string): WebhookDecideContext {
  return { urlPolicy: { allowPrivate: options.allowPrivateUrls }, ids: { webhook: () => webhookId } };
}

/** The endpoint as some events of its stream leave it (the projection's own fold). */
export function endpointOf(events: readonly RecordedEvent[], webhookId: string): WebhookEndpoint {
  return webhookEndpointView(WebhookEndpointRows.of(events).endpoints.get(webhookId)!);
}

/** A write's answer, from the stream it appended to (whatever the projection has reached). */
export async function endpointFromStream(store: EventStore, webhookId: string): Promise<WebhookEndpoint> {
  return endpointOf(await store.readStream(WEBHOOK_STREAM.stream(webhookId)), webhookId);
}
