import type { SchemaObject } from '@nestjs/swagger';
import { object, propertiesOf, ref, str, timestamp } from '../platform/resource-schemas';

/**
 * OpenAPI schemas of the webhook and event routes' objects (spec §2, §6), as named components
 * (WEBHOOK_COMPONENTS, collected by platform/openapi.ts); routes and other schemas refer to them
 * by $ref through the exported constants. Objects are closed (`additionalProperties: false`) so
 * the contract tests fail on a field the document does not name.
 */

export const WEBHOOK_SCHEMA = ref('WebhookEndpoint');
export const WEBHOOK_WITH_SECRET_SCHEMA = ref('WebhookEndpointWithSecret');
export const EVENT_SCHEMA = ref('Event');
export const DELIVERY_SCHEMA = ref('WebhookDelivery');

const subject = object({ kind: { type: 'string', example: 'payment' }, id: { type: 'string', example: 'pmt_…' } }, { description: 'The object the event is about.' });

const WEBHOOK_PROPERTIES: Record<string, SchemaObject> = {
  kind: { type: 'string', enum: ['webhook'] },
  id: { type: 'string', example: 'whk_…' },
  url: str,
  description: str,
  event_types: { type: 'array', items: str, description: 'Event types delivered; ["*"] for every type.' },
  enabled: { type: 'boolean' },
  secret_hint: { type: 'string', example: 'whsec_••••AbC=', description: 'A masked form of the signing secret: a fixed prefix, dots, and its last 4 characters.' },
  created_at: timestamp,
  updated_at: timestamp,
};

const WEBHOOK = object(
  { ...WEBHOOK_PROPERTIES, deleted: { type: 'boolean', enum: [true], description: 'Only in the answer of DELETE /webhooks/{id}: the endpoint as it was, now deleted.' } },
  { description: 'A webhook endpoint (spec §2). The whole secret is only in WebhookEndpointWithSecret, answered once.' },
  ['deleted'],
);

const SECRET: SchemaObject = {
  type: 'string',
  pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
  description: 'The whole signing secret (`whsec_` + standard base64), shown in this answer only: keep it to verify deliveries (Standard Webhooks).',
};

const WEBHOOK_WITH_SECRET = object(
  { ...propertiesOf('WebhookEndpoint', WEBHOOK_PROPERTIES), secret: SECRET, previous_secret_expires_at: { ...timestamp, description: 'POST /webhooks/{id}/rotate-secret only: until then deliveries are also signed with the previous secret.' } },
  { description: 'A webhook endpoint with its whole signing secret: the answer of POST /webhooks and POST /webhooks/{id}/rotate-secret, never replayed.' },
  ['previous_secret_expires_at'],
);

const EVENT = object(
  {
    id: { type: 'string', example: 'evt_…' },
    kind: { type: 'string', enum: ['event'] },
    type: { type: 'string', example: 'payment.succeeded' },
    subject,
    data: { type: 'object', additionalProperties: true, description: 'The object as its own endpoint returns it (payments include metadata).' },
    actor: object({ kind: { type: 'string', example: 'system' }, id: { type: 'string', nullable: true }, name: { type: 'string', nullable: true } }, { description: 'Who caused the event.' }),
    mode: { type: 'string', enum: ['live', 'test'] },
    api_version: { type: 'string', enum: ['v1'] },
    created_at: timestamp,
  },
  { description: 'An event (spec §6): the payload of a webhook delivery, and what GET /events returns.' },
);

const DELIVERY = object(
  {
    kind: { type: 'string', enum: ['webhook_delivery'] },
    id: { type: 'string', example: 'dlv_…' },
    webhook_id: str,
    event_id: str,
    event_type: str,
    subject,
    status: { type: 'string', enum: ['succeeded', 'retrying', 'failed'] },
    response_status: { type: 'integer', nullable: true, description: 'Of the last attempt; null before the first, or when no answer came.' },
    duration_ms: { type: 'integer', nullable: true },
    attempt: { type: 'integer', description: 'Attempts made, whatever their trigger.' },
    attempts: {
      type: 'array',
      items: object({
        at: timestamp,
        response_status: { type: 'integer', nullable: true },
        duration_ms: { type: 'integer' },
        trigger: { type: 'string', enum: ['automatic', 'manual', 'test'] },
        error: { type: 'string', nullable: true, description: 'Null on success; otherwise why the attempt failed.' },
      }),
    },
    next_retry_at: { ...timestamp, nullable: true, description: 'When the next automatic attempt is due; null once succeeded or failed.' },
    request_headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'The headers of the last attempt (never a secret).' },
    payload: EVENT_SCHEMA,
    created_at: timestamp,
  },
  { description: 'A webhook delivery (spec §2).' },
);

/** The named components of the webhook and event routes. */
export const WEBHOOK_COMPONENTS: Record<string, SchemaObject> = {
  WebhookEndpoint: WEBHOOK,
  WebhookEndpointWithSecret: WEBHOOK_WITH_SECRET,
  Event: EVENT,
  WebhookDelivery: DELIVERY,
};
