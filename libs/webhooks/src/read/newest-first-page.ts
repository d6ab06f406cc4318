import type { PageRequest } from '@lib/http';

/**
 * The end of a webhooks list query (events, deliveries, endpoints): newest first (created_at,
 * then `key`, both descending, as the cursor's position is), the rows after the cursor, and one
 * row more than the page so toPage can tell has_more. Its parameters are numbered from `first`,
 * after the query's own, and go at the end of the query's parameters.
 */
export function newestFirstPage(key: string, first: number, page: PageRequest): { sql: string; params: unknown[] } {
  return {
    sql: `AND ($${first}::timestamptz IS NULL OR (created_at, ${key}) < ($${first}::timestamptz, $${first + 1}::text))
        ORDER BY created_at DESC, ${key} DESC
        LIMIT $${first + 2}`,
    params: [page.after?.created_at ?? null, page.after?.id ?? null, page.limit + 1],
  };
}
