import { eventOf, type EventUnion } from '@lib/eventstore';
import { WEBHOOK_STREAM } from './stream-categories';

/**
 * The stored events of a webhook endpoint stream (`webhook-<whk_id>`). Type names and data
 * (snake_case) are the stored format: add optional fields if needed, never rename or remove.
 * Times are not in the data except where a rule needs one: the log's recordedAt is the time of
 * each event. Signing secrets are NEVER in the log (see secret-store.ts); only their hint is.
 */
export interface WebhookEndpointCreatedData {
  webhook_id: string;
  business_id: string;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  /** `whsec_••••abcd`: the masked secret shown on the endpoint. */
  secret_hint: string;
}

/** Only the fields that changed are present. */
export interface WebhookEndpointUpdatedData {
  webhook_id: string;
  url?: string;
  description?: string;
  event_types?: string[];
  enabled?: boolean;
}

export interface WebhookSecretRotatedData {
  webhook_id: string;
  secret_hint: string;
  /** End of the grace period during which deliveries are also signed with the previous secret. */
  previous_secret_expires_at: string;
}

export interface WebhookEndpointDeletedData {
  webhook_id: string;
}

export type WebhookEndpointEvent = EventUnion<{
  WebhookEndpointCreated: WebhookEndpointCreatedData;
  WebhookEndpointUpdated: WebhookEndpointUpdatedData;
  WebhookSecretRotated: WebhookSecretRotatedData;
  WebhookEndpointDeleted: WebhookEndpointDeletedData;
}>;

export const WEBHOOK_EVENT_TYPES: readonly WebhookEndpointEvent['type'][] = [
  'WebhookEndpointCreated',
  'WebhookEndpointUpdated',
  'WebhookSecretRotated',
  'WebhookEndpointDeleted',
];

/** An event read from the log as a webhook endpoint event, or null (another stream's, or an unknown type). */
export function asWebhookEndpointEvent(event: { stream?: string; type: string; data: unknown }): WebhookEndpointEvent | null {
  return eventOf<WebhookEndpointEvent>(WEBHOOK_STREAM, WEBHOOK_EVENT_TYPES, event);
}
