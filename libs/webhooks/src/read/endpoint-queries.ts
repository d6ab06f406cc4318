import type { Sql } from '@lib/database';
import { Page, businessFilters, PageRequest, toPage } from '@lib/http';
import { WebhookError } from '../domain/errors';
import { isWebhookId } from '../domain/stream-categories';
import { newestFirstPage } from './newest-first-page';
import { WebhookEndpoint, WebhookEndpointRow, webhookEndpointView } from './views';

const COLUMNS = 'id, business_id, url, description, event_types, enabled, secret_hint, created_at, updated_at, deleted_at';

/** Reads of the `webhook_endpoints` projection. */
export class EndpointQueries {
  constructor(private readonly db: Sql) {}

  /** The business's endpoints (deleted ones left out), newest first. */
  async list(businessId: string, page: PageRequest): Promise<Page<WebhookEndpoint>> {
    const newest = newestFirstPage('id', 2, page);
    const { rows } = await this.db.query<WebhookEndpointRow>(
      `SELECT ${COLUMNS} FROM webhook_endpoints
        WHERE business_id = $1 AND deleted_at IS NULL
          ${newest.sql}`,
      [businessId, ...newest.params],
    );
    return toPage('webhooks', businessFilters(businessId), rows.map(webhookEndpointView), page.limit, (v) => ({ created_at: v.created_at, id: v.id }));
  }

  /** One endpoint of the business; 404 not_found for an unknown, deleted or foreign one. */
  async get(businessId: string, webhookId: string): Promise<WebhookEndpoint> {
    const row = await this.row(businessId, webhookId);
    if (!row || row.deleted_at) throw new WebhookError('not_found', `No webhook endpoint ${webhookId}.`);
    return webhookEndpointView(row);
  }

  /** The endpoint row, deleted ones included (null when unknown or another business's). */
  async row(businessId: string, webhookId: string): Promise<WebhookEndpointRow | null> {
    if (!isWebhookId(webhookId)) return null;
    const { rows } = await this.db.query<WebhookEndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1`, [webhookId], 'webhooks_endpoint_row');
    return rows[0] && rows[0].business_id === businessId ? rows[0] : null;
  }
}
