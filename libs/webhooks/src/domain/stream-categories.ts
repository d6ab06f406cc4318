import { StreamCategory, streamCategory } from '@lib/eventstore';

/**
 * The webhooks capability's streams, declared once: every name is built and parsed through
 * these, never with a literal prefix. A category's name is part of the stored format: never
 * rename it.
 *
 * - `webhook-<whk_id>`: a webhook endpoint (endpoint.decider.ts). Its signing secrets are not in
 *   the log (app/secret-store.ts).
 */

/** A webhook endpoint id: `whk_` and 1–64 base62 characters. */
const WEBHOOK_ID = 'whk_[0-9A-Za-z]{1,64}';

export const WEBHOOK_STREAM: StreamCategory = streamCategory('webhook', new RegExp(WEBHOOK_ID));

/** Every category this capability writes: the composition root lists them (libs/wiring ALL_STREAM_CATEGORIES). */
export const WEBHOOK_STREAM_CATEGORIES: readonly StreamCategory[] = [WEBHOOK_STREAM];

const WEBHOOK_ID_RE = new RegExp(`^${WEBHOOK_ID}$`);

/** True for a well-formed endpoint id (anything else is not_found before any stream is named). */
export const isWebhookId = (id: string): boolean => WEBHOOK_ID_RE.test(id);
