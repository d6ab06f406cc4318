import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { BUSINESS_STREAM } from './stream-categories';
import { BusinessRows } from './views';

/**
 * The `businesses` projection: tables `businesses` and `api_keys`, the read side of business
 * streams (lookups of keys by hash, key lists, business views). Deterministic: rows come from
 * event data and recordedAt only, so a rebuild produces the same rows.
 */
export const businessesProjector: Projector = {
  name: 'businesses',
  tables: ['api_keys', 'businesses', 'checkout_settings'],
  schema: `
    CREATE TABLE IF NOT EXISTS businesses (
      id            text        PRIMARY KEY,
      name          text        NOT NULL,
      simulated     boolean     NOT NULL,
      status        text        NOT NULL DEFAULT 'active',
      website       text,
      support_email text,
      created_at    timestamptz NOT NULL,
      updated_at    timestamptz NOT NULL,
      suspended_at  timestamptz
    );
    -- tables made before suspensions existed (decision 0016): the same column, last as above
    ALTER TABLE businesses ADD COLUMN IF NOT EXISTS suspended_at timestamptz;
    CREATE TABLE IF NOT EXISTS api_keys (
      id            text        PRIMARY KEY,
      business_id   text        NOT NULL,
      kind          text        NOT NULL CHECK (kind IN ('secret', 'publishable', 'restricted')),
      mode          text        NOT NULL CHECK (mode IN ('live', 'test')),
      secret_hash   text        NOT NULL UNIQUE,
      prefix        text        NOT NULL,
      last4         text        NOT NULL,
      name          text,
      permissions   jsonb,
      created_at    timestamptz NOT NULL,
      revoked_at    timestamptz
    );
    CREATE INDEX IF NOT EXISTS api_keys_business ON api_keys (business_id, created_at);
    -- a business's checkout settings since its last change (decision 0028); none: the defaults
    CREATE TABLE IF NOT EXISTS checkout_settings (
      business_id   text        PRIMARY KEY,
      settings      jsonb       NOT NULL,
      updated_at    timestamptz NOT NULL
    );
  `,
  async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
    const mine = events.filter((e) => BUSINESS_STREAM.owns(e.stream));
    if (mine.length === 0) return;
    const rows = BusinessRows.of(mine);
    // Businesses created in this batch carry their last status; those created before get the UPDATE.
    // Keys revoked in this batch were created in it (their rows carry revoked_at) or before it
    // (the UPDATE). A key always comes before its revocation, so this order keeps the log's.
    if (rows.businesses.size > 0) {
      await tx.query(`INSERT INTO businesses SELECT * FROM jsonb_populate_recordset(NULL::businesses, $1::jsonb)`, [
        JSON.stringify([...rows.businesses.values()]),
      ]);
    }
    if (rows.keys.size > 0) {
      await tx.query(`INSERT INTO api_keys SELECT * FROM jsonb_populate_recordset(NULL::api_keys, $1::jsonb)`, [JSON.stringify([...rows.keys.values()])]);
    }
    if (rows.statusChanges.size > 0) {
      // suspensions and reinstatements of businesses created in earlier batches (the last of each)
      await tx.query(
        `UPDATE businesses AS b SET status = c.status, suspended_at = c.suspended_at, updated_at = c.updated_at
         FROM jsonb_to_recordset($1::jsonb) AS c(id text, status text, suspended_at timestamptz, updated_at timestamptz)
         WHERE b.id = c.id`,
        [JSON.stringify([...rows.statusChanges].map(([id, change]) => ({ id, ...change })))],
      );
    }
    if (rows.checkoutSettings.size > 0) {
      await tx.query(
        `INSERT INTO checkout_settings SELECT * FROM jsonb_populate_recordset(NULL::checkout_settings, $1::jsonb)
         ON CONFLICT (business_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = EXCLUDED.updated_at`,
        [JSON.stringify([...rows.checkoutSettings.values()])],
      );
    }
    if (rows.keyChanges.size > 0) {
      // names, grants and rolled secrets of keys created in earlier batches (each field only where it changed)
      await tx.query(
        `UPDATE api_keys AS k SET
           name = CASE WHEN c.change -> 'name' IS NOT NULL THEN c.change->>'name' ELSE k.name END,
           permissions = CASE WHEN c.change -> 'permissions' IS NOT NULL THEN c.change->'permissions' ELSE k.permissions END,
           secret_hash = COALESCE(c.change->>'secret_hash', k.secret_hash),
           last4 = COALESCE(c.change->>'last4', k.last4)
         FROM jsonb_to_recordset($1::jsonb) AS c(id text, change jsonb)
         WHERE k.id = c.id`,
        [JSON.stringify([...rows.keyChanges].map(([id, change]) => ({ id, change })))],
      );
    }
    if (rows.revocations.size > 0) {
      await tx.query(
        `UPDATE api_keys AS k SET revoked_at = r.revoked_at
         FROM jsonb_to_recordset($1::jsonb) AS r(id text, revoked_at timestamptz)
         WHERE k.id = r.id AND k.revoked_at IS NULL`,
        [JSON.stringify([...rows.revocations].map(([id, at]) => ({ id, revoked_at: at })))],
      );
    }
  },
};
