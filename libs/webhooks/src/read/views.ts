import { ignoreUnknown } from '@lib/domain';
import type { RecordedEvent } from '@lib/eventstore';
import { WebhookEndpointCreatedData, asWebhookEndpointEvent } from '../domain/endpoint.events';

/** What an endpoint is, as its creation recorded it (and updates change). */
type EndpointFields = Pick<WebhookEndpointCreatedData, 'url' | 'description' | 'event_types' | 'enabled' | 'secret_hint'>;

/** The webhook endpoint object (spec §2, `kind` = `webhook`). */
export interface WebhookEndpoint extends EndpointFields {
  kind: 'webhook';
  id: string;
  created_at: string;
  updated_at: string;
}

/** A row of the `webhook_endpoints` table. */
export interface WebhookEndpointRow extends EndpointFields, Pick<WebhookEndpointCreatedData, 'business_id'> {
  id: string;
  created_at: Date | string;
  updated_at: Date | string;
  deleted_at: Date | string | null;
}

export function webhookEndpointView(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    kind: 'webhook',
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: [...row.event_types],
    enabled: row.enabled,
    secret_hint: row.secret_hint,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/**
 * The rows the webhook_endpoints projection holds for some events, computed in memory: the
 * projector applies exactly this fold, and the service answers a write from the stream it just
 * appended to.
 */
export class WebhookEndpointRows {
  readonly endpoints = new Map<string, WebhookEndpointRow>();

  apply(event: Pick<RecordedEvent, 'type' | 'data' | 'recordedAt'> & { stream?: string }): void {
    applyEndpointEvent(this.endpoints, event);
  }

  static of(events: Iterable<Pick<RecordedEvent, 'type' | 'data' | 'recordedAt'> & { stream?: string }>): WebhookEndpointRows {
    const rows = new WebhookEndpointRows();
    for (const event of events) rows.apply(event);
    return rows;
  }
}

/** Applies one event to rows by id (rows not in the map are left alone); returns the row it changed. */
export function applyEndpointEvent(
  rows: Map<string, WebhookEndpointRow>,
  event: Pick<RecordedEvent, 'type' | 'data' | 'recordedAt'> & { stream?: string },
): WebhookEndpointRow | null {
  const known = asWebhookEndpointEvent(event);
  if (!known) return null;
  const at = event.recordedAt;
  if (known.type === 'WebhookEndpointCreated') {
    const d = known.data;
    const row: WebhookEndpointRow = {
      id: d.webhook_id,
      business_id: d.business_id,
      url: d.url,
      description: d.description,
      event_types: [...d.event_types],
      enabled: d.enabled,
      secret_hint: d.secret_hint,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    };
    rows.set(row.id, row);
    return row;
  }
  const row = rows.get(known.data.webhook_id);
  if (!row) return null;
  switch (known.type) {
    case 'WebhookEndpointUpdated': {
      const d = known.data;
      if (d.url !== undefined) row.url = d.url;
      if (d.description !== undefined) row.description = d.description;
      if (d.event_types !== undefined) row.event_types = [...d.event_types];
      if (d.enabled !== undefined) row.enabled = d.enabled;
      break;
    }
    case 'WebhookSecretRotated':
      row.secret_hint = known.data.secret_hint;
      break;
    case 'WebhookEndpointDeleted':
      row.deleted_at = row.deleted_at ?? at;
      break;
    default:
      return ignoreUnknown(known, null);
  }
  row.updated_at = at;
  return row;
}

export function iso(date: Date | string): string {
  return new Date(date).toISOString();
}
