import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { eventTime } from '@lib/payments';
import { asLinkEvent } from './events';
import { fieldsOf } from './link.decider';
import { LINK_STREAM } from './stream-categories';

/**
 * The `links` projection (decision 0030; deterministic: event data and times only): every link
 * not deleted, as GET /links shows it. `payments_count` counts the link's LinkPaymentRecorded;
 * `updated_at` moves with the business's and the operator's changes, not with payments.
 */
export const linksProjector: Projector = {
  name: 'links',
  tables: ['links'],
  schema: `
    CREATE TABLE IF NOT EXISTS links (
      id             text        PRIMARY KEY,
      business_id    text        NOT NULL,
      mode           text        NOT NULL,
      code           text        NOT NULL,
      status         text        NOT NULL,
      name           text        NOT NULL,
      description    text,
      amount         bigint      NOT NULL,
      currency       text        NOT NULL,
      rails          jsonb,
      assets         jsonb,
      success_url    text,
      ask_email      boolean     NOT NULL,
      metadata       jsonb       NOT NULL,
      payments_count integer     NOT NULL DEFAULT 0,
      created_at     timestamptz NOT NULL,
      updated_at     timestamptz NOT NULL
    );
    CREATE UNIQUE INDEX IF NOT EXISTS links_code ON links (code);
    CREATE INDEX IF NOT EXISTS links_business_created ON links (business_id, created_at DESC, id DESC);
  `,
  async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
    for (const event of events) {
      const link = asLinkEvent(event);
      if (link === null) continue;
      const id = LINK_STREAM.parse(event.stream)!;
      const at = eventTime(event);
      switch (link.type) {
        case 'LinkCreated': {
          const d = link.data;
          const f = fieldsOf(d);
          await tx.query(
            `INSERT INTO links (id, business_id, mode, code, status, name, description, amount, currency, rails, assets, success_url, ask_email, metadata, payments_count, created_at, updated_at)
             VALUES ($1, $2, $3, $4, 'active', $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12, $13::jsonb, 0, $14, $14) ON CONFLICT (id) DO NOTHING`,
            [id, d.business_id, d.mode, d.code, f.name, f.description, f.amount, f.currency, JSON.stringify(f.rails), JSON.stringify(f.assets), f.success_url, f.ask_email, JSON.stringify(f.metadata), at],
          );
          break;
        }
        case 'LinkUpdated': {
          const f = fieldsOf(link.data);
          await tx.query(
            `UPDATE links SET name = $2, description = $3, amount = $4, currency = $5, rails = $6::jsonb, assets = $7::jsonb, success_url = $8, ask_email = $9, metadata = $10::jsonb, updated_at = $11 WHERE id = $1`,
            [id, f.name, f.description, f.amount, f.currency, JSON.stringify(f.rails), JSON.stringify(f.assets), f.success_url, f.ask_email, JSON.stringify(f.metadata), at],
          );
          break;
        }
        case 'LinkArchived':
        case 'LinkRestored':
        case 'LinkDisabled': {
          const status = link.type === 'LinkArchived' ? 'archived' : link.type === 'LinkRestored' ? 'active' : 'disabled';
          await tx.query(`UPDATE links SET status = $2, updated_at = $3 WHERE id = $1`, [id, status, at]);
          break;
        }
        case 'LinkDeleted':
          await tx.query(`DELETE FROM links WHERE id = $1`, [id]);
          break;
        case 'LinkPaymentRecorded':
          await tx.query(`UPDATE links SET payments_count = payments_count + 1 WHERE id = $1`, [id]);
          break;
      }
    }
  },
};
