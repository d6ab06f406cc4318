import type { Sql } from '@lib/database';

/**
 * The settings every process of the service must share because what one process renders or
 * accepts another shows or acts on (operator audit 2026-11-29, F1): CHECKOUT_BASE_URL (a payment
 * event's `url`, rendered by whichever process applies the `events` projection, stored and sent
 * in webhooks), API_BASE_URL (the links e-mails carry) and WEBHOOK_ALLOW_PRIVATE_URLS (an
 * endpoint the API accepts, the worker sends to), as the service last started with them. Every
 * process records them at start and says, loudly, which of its own differ from the recorded ones
 * (differingSettings); an operator's CLI rebuild or verify renders with the recorded
 * CHECKOUT_BASE_URL, and refuses when the service disagreed with itself (renderingFor).
 */
export interface RenderingSettings {
  checkoutBaseUrl: string;
  /** Absent from what a process of an earlier version recorded. */
  apiBaseUrl?: string | null;
  webhookAllowPrivateUrls?: boolean;
  /** The role of the process that recorded them (all, api, worker). */
  role?: string;
  /**
   * The CHECKOUT_BASE_URL a process replaced with another (processes started with different
   * values): events rendered before may carry it, so a CLI rebuild or verify must be told
   * explicitly which value is right. Kept until the recorded value is confirmed (renderingFor).
   */
  replacedCheckoutBaseUrl?: string | null;
}

/** A setting whose value in this process differs from the one the service recorded. */
export interface SettingDifference {
  variable: 'CHECKOUT_BASE_URL' | 'API_BASE_URL' | 'WEBHOOK_ALLOW_PRIVATE_URLS';
  recorded: string;
  own: string;
}

const TABLE = `CREATE TABLE IF NOT EXISTS public.service_rendering_settings (
  name       text        PRIMARY KEY,
  value      jsonb       NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
)`;

/** A URL as said in a log line: without user or password, should one hold any. */
function shown(url: string | null | undefined): string {
  if (url == null) return '(unset)';
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparseable)';
  }
}

/** The settings of `own` that differ from `recorded` (none when nothing was recorded); values shown without credentials. */
export function differingSettings(recorded: RenderingSettings | null, own: RenderingSettings): SettingDifference[] {
  if (recorded === null) return [];
  const differences: SettingDifference[] = [];
  if (recorded.checkoutBaseUrl !== own.checkoutBaseUrl) differences.push({ variable: 'CHECKOUT_BASE_URL', recorded: shown(recorded.checkoutBaseUrl), own: shown(own.checkoutBaseUrl) });
  if (recorded.apiBaseUrl !== undefined && (recorded.apiBaseUrl ?? null) !== (own.apiBaseUrl ?? null)) {
    differences.push({ variable: 'API_BASE_URL', recorded: shown(recorded.apiBaseUrl), own: shown(own.apiBaseUrl) });
  }
  if (recorded.webhookAllowPrivateUrls !== undefined && recorded.webhookAllowPrivateUrls !== (own.webhookAllowPrivateUrls ?? false)) {
    differences.push({ variable: 'WEBHOOK_ALLOW_PRIVATE_URLS', recorded: String(recorded.webhookAllowPrivateUrls), own: String(own.webhookAllowPrivateUrls ?? false) });
  }
  return differences;
}

/** The warning a process logs at start for each setting that differs from the service's recorded one. */
export function differenceWarning(difference: SettingDifference, recordedBy: string | undefined): string {
  return (
    `${difference.variable} of this process (${difference.own}) differs from the service's (${difference.recorded}, recorded by ${recordedBy ? `a process with ROLE=${recordedBy}` : 'another process'}): ` +
    'every process (API replicas, workers, CLI) must run with the same value, or payloads, webhooks and links disagree with what GET shows'
  );
}

/**
 * Records the settings this process runs with (at start) and answers how they differ from what
 * was recorded before (the caller warns). The last process to start still wins — a deliberate
 * change reaches every process over a restart — but a CHECKOUT_BASE_URL it replaces is kept as
 * `replacedCheckoutBaseUrl`, for the CLI to refuse rendering by guess (renderingFor).
 */
export async function recordRenderingSettings(db: Sql, settings: RenderingSettings): Promise<{ recorded: RenderingSettings | null; differences: SettingDifference[] }> {
  try {
    await db.query(TABLE);
  } catch (error) {
    // two processes starting at once on PostgreSQL: the other one created it
    if (!['23505', '42P07'].includes((error as { code?: string }).code ?? '')) throw error;
  }
  const recorded = await recordedRenderingSettings(db);
  const differences = differingSettings(recorded, settings);
  const replaced =
    recorded === null ? null : recorded.checkoutBaseUrl !== settings.checkoutBaseUrl ? recorded.checkoutBaseUrl : (recorded.replacedCheckoutBaseUrl ?? null);
  const value: RenderingSettings = { ...settings, replacedCheckoutBaseUrl: replaced };
  await db.query(
    `INSERT INTO public.service_rendering_settings (name, value, updated_at) VALUES ('current', $1::jsonb, now())
     ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now() WHERE service_rendering_settings.value IS DISTINCT FROM EXCLUDED.value`,
    [JSON.stringify(value)],
  );
  return { recorded, differences };
}

/** The settings the service last recorded, or null (it never ran on this store). */
export async function recordedRenderingSettings(db: Sql): Promise<RenderingSettings | null> {
  const { rows: table } = await db.query<{ found: string | null }>(`SELECT to_regclass('public.service_rendering_settings')::text AS found`);
  if (table[0]?.found == null) return null;
  const { rows } = await db.query<{ value: RenderingSettings }>(`SELECT value FROM public.service_rendering_settings WHERE name = 'current'`);
  const value = rows[0]?.value;
  return value && typeof value.checkoutBaseUrl === 'string' ? value : null;
}

/**
 * The CHECKOUT_BASE_URL an operator's `projections rebuild` or `verify` renders with, so that a
 * replay stores what the service stores and never rewrites payloads with another host:
 * - the CLI's own (CHECKOUT_BASE_URL or PORT set) when it equals the recorded one, or nothing was recorded;
 * - the recorded one when the CLI names none, unless the service's processes started with
 *   different values (replacedCheckoutBaseUrl): then the operator must name the right one;
 * - else a refusal naming the setting and both values (the caller exits 2).
 */
export function renderingFor(
  recorded: RenderingSettings | null,
  own: { checkoutBaseUrl: string; named: boolean },
): { checkoutBaseUrl: string; note: string | null } | { refusal: string } {
  if (recorded === null) return { checkoutBaseUrl: own.checkoutBaseUrl, note: null };
  if (own.named) {
    if (own.checkoutBaseUrl === recorded.checkoutBaseUrl) return { checkoutBaseUrl: own.checkoutBaseUrl, note: null };
    return {
      refusal:
        `CHECKOUT_BASE_URL of this CLI (${shown(own.checkoutBaseUrl)}) differs from the service's (${shown(recorded.checkoutBaseUrl)}): ` +
        'rendering with it would make verify flag, and rebuild rewrite, every payment event with another host. Run the CLI with the environment of the service ' +
        "(the same CHECKOUT_BASE_URL); if the service's value is the wrong one, restart every process with the right one first.",
    };
  }
  if (recorded.replacedCheckoutBaseUrl != null && recorded.replacedCheckoutBaseUrl !== recorded.checkoutBaseUrl) {
    return {
      refusal:
        `the service's processes started with different CHECKOUT_BASE_URL values (${shown(recorded.checkoutBaseUrl)}, last, and ${shown(recorded.replacedCheckoutBaseUrl)} before it): ` +
        'stored events may carry either. Give every process the same value, then run this with CHECKOUT_BASE_URL set to it.',
    };
  }
  if (recorded.checkoutBaseUrl === own.checkoutBaseUrl) return { checkoutBaseUrl: own.checkoutBaseUrl, note: null };
  return { checkoutBaseUrl: recorded.checkoutBaseUrl, note: `rendering with the service's recorded CHECKOUT_BASE_URL ${shown(recorded.checkoutBaseUrl)}` };
}
