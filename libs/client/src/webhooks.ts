import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './openapi-types';

/** The event a webhook delivery carries (spec §6), as the OpenAPI document describes it. */
export type WebhookEvent = components['schemas']['Event'];

export { WebhookVerificationError };

/** Request headers as Node's http module, a framework or the Fetch API gives them. */
export type DeliveryHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the endpoint's signing secret (`whsec_…`, returned once by
 * POST /webhooks and POST /webhooks/{id}/rotate-secret) and returns the event it carries.
 *
 * Pass the body exactly as received (the raw text or bytes, not re-serialized JSON). Throws
 * WebhookVerificationError when a header is missing, the timestamp is more than five minutes
 * from now, or no signature matches (after a rotation a delivery carries the new and the old
 * secret's signatures for 24 hours; either secret verifies it).
 */
export function verifyWebhook(secret: string, body: string | Buffer, headers: DeliveryHeaders): WebhookEvent {
  return new Webhook(secret).verify(body, signatureHeaders(headers)) as WebhookEvent;
}

function signatureHeaders(headers: DeliveryHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries: [string, string | string[] | undefined][] = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    if (key !== 'webhook-id' && key !== 'webhook-timestamp' && key !== 'webhook-signature') continue;
    const text = Array.isArray(value) ? value.join(' ') : value;
    if (text !== undefined) out[key] = text;
  }
  return out;
}
