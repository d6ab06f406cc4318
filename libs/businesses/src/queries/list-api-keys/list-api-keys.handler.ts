import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { Page, businessFilters, pageRequest, toPage, unfilteredListQuery } from '@lib/http';
import { ApiKeyReadRow, ApiKeyView, apiKeyView } from '../../views';
import { ListApiKeysQuery } from './list-api-keys.query';

const API_KEYS_LIST = 'api_keys';
const COLUMNS = 'k.id, k.business_id, k.kind, k.mode, k.prefix, k.last4, k.name, k.permissions, k.created_at, k.revoked_at, a.last_used_at';

/**
 * GET /api-keys: the `api_keys` rows of the business, newest first (created_at, then id), paged
 * by a cursor bound to this list, each with when it was last used (`api_key_activity`). The hash
 * is not even read.
 */
@QueryHandler(ListApiKeysQuery)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeysQuery, Page<ApiKeyView>> {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  async execute({ businessId, query }: ListApiKeysQuery): Promise<Page<ApiKeyView>> {
    const { limit, after } = pageRequest(API_KEYS_LIST, businessFilters(businessId), unfilteredListQuery(query));
    const params: unknown[] = [businessId];
    const param = (value: unknown): string => `$${params.push(value)}`;
    const where = ['k.business_id = $1'];
    if (after) where.push(`(k.created_at, k.id) < (${param(after.created_at)}::timestamptz, ${param(after.id)})`);
    // unnamed, as every list's page: the text varies with the cursor, and pg refuses a named statement whose text changed
    const { rows } = await this.db.query<ApiKeyReadRow>(
      `SELECT ${COLUMNS} FROM api_keys k LEFT JOIN api_key_activity a ON a.key_id = k.id
       WHERE ${where.join(' AND ')} ORDER BY k.created_at DESC, k.id DESC LIMIT ${param(limit + 1)}`,
      params,
    );
    const paged = toPage(API_KEYS_LIST, businessFilters(businessId), rows, limit, (r) => ({ created_at: new Date(r.created_at).toISOString(), id: r.id }));
    return { ...paged, data: paged.data.map(apiKeyView) };
  }
}
