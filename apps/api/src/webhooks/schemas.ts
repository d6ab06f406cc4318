import type { SchemaObject } from '@nestjs/swagger';

const timestamp: SchemaObject = { type: 'string', format: 'date-time' };

export const WEBHOOK_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'A webhook endpoint (spec §2).',
  required: ['kind', 'id', 'url', 'description', 'event_types', 'enabled', 'secret_hint', 'created_at', 'updated_at'],
  properties: {
    kind: { type: 'string', enum: ['webhook'] },
    id: { type: 'string', example: 'whk_…' },
    url: { type: 'string' },
    description: { type: 'string' },
    event_types: { type: 'array', items: { type: 'string' } },
    enabled: { type: 'boolean' },
    secret_hint: { type: 'string', example: 'whsec_••••AbC=' },
    created_at: timestamp,
    updated_at: timestamp,
  },
};

export const WEBHOOK_WITH_SECRET_SCHEMA: SchemaObject = {
  allOf: [
    WEBHOOK_SCHEMA,
    {
      type: 'object',
      required: ['secret'],
      properties: { secret: { type: 'string', description: 'The whole signing secret (`whsec_` + base64), shown in this answer only.' } },
    },
  ],
};

export const EVENT_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'An event (spec §6): the payload of a delivery.',
  required: ['id', 'kind', 'type', 'subject', 'data', 'actor', 'mode', 'api_version', 'created_at'],
  properties: {
    id: { type: 'string', example: 'evt_…' },
    kind: { type: 'string', enum: ['event'] },
    type: { type: 'string', example: 'payment.succeeded' },
    subject: { type: 'object', properties: { kind: { type: 'string' }, id: { type: 'string' } } },
    data: { type: 'object', description: 'The object as its own endpoint returns it.' },
    actor: { type: 'object', properties: { kind: { type: 'string' }, id: { type: 'string', nullable: true }, name: { type: 'string', nullable: true } } },
    mode: { type: 'string', enum: ['live', 'test'] },
    api_version: { type: 'string', enum: ['v1'] },
    created_at: timestamp,
  },
};

export const DELIVERY_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'A webhook delivery (spec §2).',
  required: ['kind', 'id', 'webhook_id', 'event_id', 'event_type', 'subject', 'status', 'attempt', 'attempts', 'next_retry_at', 'request_headers', 'payload', 'created_at'],
  properties: {
    kind: { type: 'string', enum: ['webhook_delivery'] },
    id: { type: 'string', example: 'dlv_…' },
    webhook_id: { type: 'string' },
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    subject: { type: 'object', properties: { kind: { type: 'string' }, id: { type: 'string' } } },
    status: { type: 'string', enum: ['succeeded', 'retrying', 'failed'] },
    response_status: { type: 'integer', nullable: true },
    duration_ms: { type: 'integer', nullable: true },
    attempt: { type: 'integer' },
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          at: timestamp,
          response_status: { type: 'integer', nullable: true },
          duration_ms: { type: 'integer' },
          trigger: { type: 'string', enum: ['automatic', 'manual', 'test'] },
          error: { type: 'string', nullable: true },
        },
      },
    },
    next_retry_at: { ...timestamp, nullable: true },
    request_headers: { type: 'object', additionalProperties: { type: 'string' } },
    payload: EVENT_SCHEMA,
    created_at: timestamp,
  },
};

export function listOf(item: SchemaObject): SchemaObject {
  return {
    type: 'object',
    required: ['data', 'has_more', 'next_cursor'],
    properties: { data: { type: 'array', items: item }, has_more: { type: 'boolean' }, next_cursor: { type: 'string', nullable: true } },
  };
}
