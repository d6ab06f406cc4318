import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import type { ReferralPayoutAccruedData } from './referrals';
import { BUSINESS_STREAM, REFERRAL_PAYOUT_STREAM } from './stream-categories';
import { BusinessRow, BusinessRows } from './views';

/**
 * The `businesses` projection: tables `businesses`, `api_keys`, `checkout_settings` and
 * `referral_payouts`, the read side of business and referral payout streams (lookups of keys by hash, key lists, business views). Deterministic: rows come from
 * event data and recordedAt only, so a rebuild produces the same rows.
 */
export const businessesProjector: Projector = {
  name: 'businesses',
  tables: ['api_keys', 'businesses', 'checkout_settings', 'referral_payouts'],
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
    -- settings, alert address and referrals (decision 0035)
    ALTER TABLE businesses ADD COLUMN IF NOT EXISTS email_alerts boolean NOT NULL DEFAULT true;
    ALTER TABLE businesses ADD COLUMN IF NOT EXISTS product_updates boolean NOT NULL DEFAULT false;
    ALTER TABLE businesses ADD COLUMN IF NOT EXISTS alert_email text;
    ALTER TABLE businesses ADD COLUMN IF NOT EXISTS pending_alert_email text;
    ALTER TABLE businesses ADD COLUMN IF NOT EXISTS referral_code text;
    ALTER TABLE businesses ADD COLUMN IF NOT EXISTS referred_by text;
    CREATE INDEX IF NOT EXISTS businesses_referral_code ON businesses (referral_code) WHERE referral_code IS NOT NULL;
    CREATE INDEX IF NOT EXISTS businesses_referred_by ON businesses (referred_by) WHERE referred_by IS NOT NULL;
    -- referral payouts (decision 0035): one row per payment of a referred business
    CREATE TABLE IF NOT EXISTS referral_payouts (
      payment_id            text        PRIMARY KEY,
      referrer_business_id  text        NOT NULL,
      referred_business_id  text        NOT NULL,
      currency              text        NOT NULL,
      fee                   bigint      NOT NULL,
      share_bps             integer     NOT NULL,
      amount                bigint      NOT NULL,
      created_at            timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS referral_payouts_referrer ON referral_payouts (referrer_business_id, created_at);
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
    const payouts = events.filter((e) => REFERRAL_PAYOUT_STREAM.owns(e.stream) && e.type === 'ReferralPayoutAccrued');
    if (payouts.length > 0) {
      const rows = payouts.map((e) => ({ ...(e.data as ReferralPayoutAccruedData), created_at: e.recordedAt }));
      await tx.query(`INSERT INTO referral_payouts SELECT * FROM jsonb_populate_recordset(NULL::referral_payouts, $1::jsonb) ON CONFLICT (payment_id) DO NOTHING`, [JSON.stringify(rows)]);
    }
    const mine = events.filter((e) => BUSINESS_STREAM.owns(e.stream));
    if (mine.length === 0) return;
    // Businesses changed in this batch but created before it are read first (seeded), so every
    // change applies to a whole row; then each touched row is written whole. Keys revoked in this
    // batch were created in it (their rows carry revoked_at) or before it (the UPDATE). A key
    // always comes before its revocation, so this order keeps the log's.
    const rows = new BusinessRows();
    const created = new Set(mine.filter((e) => e.type === 'BusinessCreated').map((e) => BUSINESS_STREAM.parse(e.stream)!));
    const earlier = [...new Set(mine.map((e) => BUSINESS_STREAM.parse(e.stream)!))].filter((id) => !created.has(id));
    if (earlier.length > 0) {
      const { rows: stored } = await tx.query<BusinessRow>(`SELECT * FROM businesses WHERE id = ANY($1::text[])`, [earlier]);
      for (const row of stored) rows.businesses.set(row.id, { ...row });
    }
    for (const event of mine) rows.apply(event);
    if (rows.businesses.size > 0) {
      await tx.query(
        `INSERT INTO businesses SELECT * FROM jsonb_populate_recordset(NULL::businesses, $1::jsonb)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, status = EXCLUDED.status, website = EXCLUDED.website, support_email = EXCLUDED.support_email,
           updated_at = EXCLUDED.updated_at, suspended_at = EXCLUDED.suspended_at, email_alerts = EXCLUDED.email_alerts, product_updates = EXCLUDED.product_updates,
           alert_email = EXCLUDED.alert_email, pending_alert_email = EXCLUDED.pending_alert_email, referral_code = EXCLUDED.referral_code, referred_by = EXCLUDED.referred_by`,
        [JSON.stringify([...rows.businesses.values()])],
      );
    }
    if (rows.keys.size > 0) {
      await tx.query(`INSERT INTO api_keys SELECT * FROM jsonb_populate_recordset(NULL::api_keys, $1::jsonb)`, [JSON.stringify([...rows.keys.values()])]);
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
