import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { asWebhookEndpointEvent } from '../domain/endpoint.events';
import { WebhookEndpointRow, applyEndpointEvent } from './views';

const COLUMNS = 'id, business_id, url, description, event_types, enabled, secret_hint, created_at, updated_at, deleted_at';

/**
 * The `webhook_endpoints` projection: one row per endpoint of `webhook-<whk_id>` streams, deleted
 * ones kept with `deleted_at` (the delivery log of a deleted endpoint answers 404, and the
 * dispatcher fails its pending deliveries). Deterministic: rows come from event data and
 * recordedAt only. Secrets are not here (secret-store.ts).
 */
export const webhookEndpointsProjector: Projector = {
  name: 'webhook_endpoints',
  tables: ['webhook_endpoints'],
  schema: `
    CREATE TABLE IF NOT EXISTS webhook_endpoints (
      id           text        PRIMARY KEY,
      business_id  text        NOT NULL,
      url          text        NOT NULL,
      description  text        NOT NULL,
      event_types  jsonb       NOT NULL,
      enabled      boolean     NOT NULL,
      secret_hint  text        NOT NULL,
      created_at   timestamptz NOT NULL,
      updated_at   timestamptz NOT NULL,
      deleted_at   timestamptz
    );
    CREATE INDEX IF NOT EXISTS webhook_endpoints_business ON webhook_endpoints (business_id, created_at DESC, id DESC);
  `,
  async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
    const mine = events.filter((e) => asWebhookEndpointEvent(e) !== null);
    if (mine.length === 0) return;
    const ids = [...new Set(mine.map((e) => (e.data as { webhook_id: string }).webhook_id))];
    const { rows: existing } = await tx.query<WebhookEndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = ANY($1::text[])`, [ids]);
    const rows = new Map(existing.map((r) => [r.id, r]));
    const touched = new Set<string>();
    for (const event of mine) {
      const row = applyEndpointEvent(rows, event);
      if (row) touched.add(row.id);
    }
    if (touched.size === 0) return;
    const changed = [...touched].map((id) => {
      const r = rows.get(id)!;
      return { ...r, event_types: r.event_types, created_at: iso(r.created_at), updated_at: iso(r.updated_at), deleted_at: r.deleted_at ? iso(r.deleted_at) : null };
    });
    await tx.query(
      `INSERT INTO webhook_endpoints AS w (${COLUMNS})
       SELECT ${COLUMNS} FROM jsonb_populate_recordset(NULL::webhook_endpoints, $1::jsonb)
       ON CONFLICT (id) DO UPDATE SET
         url = excluded.url, description = excluded.description, event_types = excluded.event_types,
         enabled = excluded.enabled, secret_hint = excluded.secret_hint, updated_at = excluded.updated_at,
         deleted_at = excluded.deleted_at`,
      [JSON.stringify(changed)],
    );
  },
};

function iso(date: Date | string): string {
  return new Date(date).toISOString();
}
