import type { Sql } from '@lib/database';

/**
 * The settings that shape what the projections store (today: CHECKOUT_BASE_URL, which a payment
 * event's `url` is built from when the `events` projection renders it), as the service last ran
 * with them. Every process of the service records them at start; an operator's CLI rebuild or
 * verify renders with them when its own environment names none, so that a replay stores what
 * the service stored (operators audit, 2026-11-28: a rebuild with the CLI's default port
 * changed every event's `url`, and verify flagged a healthy system).
 */
export interface RenderingSettings {
  checkoutBaseUrl: string;
}

const TABLE = `CREATE TABLE IF NOT EXISTS public.service_rendering_settings (
  name       text        PRIMARY KEY,
  value      jsonb       NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
)`;

/** Records the settings this process renders with (at start). */
export async function recordRenderingSettings(db: Sql, settings: RenderingSettings): Promise<void> {
  try {
    await db.query(TABLE);
  } catch (error) {
    // two processes starting at once on PostgreSQL: the other one created it
    if (!['23505', '42P07'].includes((error as { code?: string }).code ?? '')) throw error;
  }
  await db.query(
    `INSERT INTO public.service_rendering_settings (name, value, updated_at) VALUES ('current', $1::jsonb, now())
     ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now() WHERE service_rendering_settings.value IS DISTINCT FROM EXCLUDED.value`,
    [JSON.stringify(settings)],
  );
}

/** The settings the service last recorded, or null (it never ran on this store). */
export async function recordedRenderingSettings(db: Sql): Promise<RenderingSettings | null> {
  const { rows: table } = await db.query<{ found: string | null }>(`SELECT to_regclass('public.service_rendering_settings')::text AS found`);
  if (table[0]?.found == null) return null;
  const { rows } = await db.query<{ value: RenderingSettings }>(`SELECT value FROM public.service_rendering_settings WHERE name = 'current'`);
  const value = rows[0]?.value;
  return value && typeof value.checkoutBaseUrl === 'string' ? value : null;
}
