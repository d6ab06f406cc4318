import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { NewestFirstTable, Page, newestFirstPage, statusListQuery } from '@lib/http';
import { LINK_CODE, isLinkId } from './stream-categories';
import { LinkRow, LinkView, linkUrl, linkView } from './views';

export const LINKS_LIST = 'links';
const STATUSES = ['active', 'archived', 'disabled'];

const COLUMNS = `id, business_id, mode, code, status, name, description, amount, currency, rails, assets, success_url, ask_email, metadata, payments_count, created_at, updated_at`;
const LINKS_TABLE: NewestFirstTable = { list: LINKS_LIST, table: 'links', columns: COLUMNS, filterColumns: { status: 'status' } };

/** Queries over the `links` projection, scoped by business: another business's link reads as none. */
@Injectable()
export class LinksReadModel {
  private readonly checkoutBaseUrl: string;

  constructor(
    @Inject(DATABASE) private readonly db: Sql,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.checkoutBaseUrl = config.checkoutBaseUrl;
  }

  view(row: LinkRow): LinkView {
    return linkView(row, this.checkoutBaseUrl);
  }

  async get(businessId: string, linkId: string): Promise<LinkView | null> {
    if (!isLinkId(linkId)) return null;
    const { rows } = await this.db.query<LinkRow>(`SELECT ${COLUMNS} FROM links WHERE id = $1 AND business_id = $2`, [linkId, businessId]);
    return rows[0] ? this.view(rows[0]) : null;
  }

  /** The business's links among `ids`, as GET /links/{id} returns them (others left out): search results. */
  async getMany(businessId: string, ids: readonly string[]): Promise<LinkView[]> {
    const wanted = ids.filter(isLinkId);
    if (wanted.length === 0) return [];
    const { rows } = await this.db.query<LinkRow>(`SELECT ${COLUMNS} FROM links WHERE business_id = $1 AND id = ANY($2::text[])`, [businessId, wanted]);
    return rows.map((row) => this.view(row));
  }

  /** The link a code names (any business, any status), or null (none, or deleted). */
  async byCode(code: string): Promise<LinkRow | null> {
    if (!LINK_CODE.test(code)) return null;
    const { rows } = await this.db.query<LinkRow>(`SELECT ${COLUMNS} FROM links WHERE code = $1`, [code], 'link_by_code');
    return rows[0] ?? null;
  }

  /** The link's page URL (null: none, or deleted). */
  async urlOf(linkId: string): Promise<string | null> {
    const { rows } = await this.db.query<{ code: string }>(`SELECT code FROM links WHERE id = $1`, [linkId]);
    return rows[0] ? linkUrl(this.checkoutBaseUrl, rows[0].code) : null;
  }

  /** The status of a link (null: none, or deleted). */
  async status(linkId: string): Promise<string | null> {
    const { rows } = await this.db.query<{ status: string }>(`SELECT status FROM links WHERE id = $1`, [linkId]);
    return rows[0]?.status ?? null;
  }

  /** GET /links: newest first (created_at, then id), filter `status`, paged by a cursor bound to this list and its filter. */
  async list(businessId: string, query: Record<string, unknown> | null | undefined): Promise<Page<LinkView>> {
    const { page, filters } = statusListQuery(query, STATUSES);
    const paged = await newestFirstPage<LinkRow>(this.db, LINKS_TABLE, businessId, filters, page);
    return { ...paged, data: paged.data.map((r) => this.view(r)) };
  }
}
