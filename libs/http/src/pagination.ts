import { createHash } from 'node:crypto';
import { ApiError } from './api-error';

/** Where a page ends: lists are newest first, ties broken by id (both descending). */
export interface CursorPosition {
  created_at: string;
  id: string;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface PageRequest {
  limit: number;
  after: CursorPosition | null;
}

/**
 * Opaque cursors bound to the list that made them: the list's name and its filters are part
 * of the cursor, so a cursor from another list (or the same list with other filters) is
 * refused with 400 invalid_request rather than silently paging something else.
 */
export function encodeCursor(list: string, filters: Record<string, unknown>, position: CursorPosition): string {
  const payload = { v: 1, l: list, f: filterHash(filters), c: position.created_at, i: position.id };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

export function decodeCursor(list: string, filters: Record<string, unknown>, cursor: string): CursorPosition {
  const foreign = () => new ApiError('invalid_request', 'This cursor does not belong to this list (or its filters changed).', 'cursor');
  if (!/^[A-Za-z0-9_-]{1,1000}$/.test(cursor)) throw foreign();
  let payload: { v?: unknown; l?: unknown; f?: unknown; c?: unknown; i?: unknown };
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw foreign();
  }
  if (payload?.v !== 1 || payload.l !== list || payload.f !== filterHash(filters)) throw foreign();
  if (!isPositionTime(payload.c) || typeof payload.i !== 'string') throw foreign();
  return { created_at: payload.c, id: payload.i };
}

/**
 * A cursor's time is what every list writes there: `toISOString()` of a row's creation, years
 * 1000 to 9999. Anything else was not made by a list (Date.parse reads `12`, `1/2/3` or a year of
 * six digits that PostgreSQL cannot, and the page's query failed with a 500).
 */
function isPositionTime(value: unknown): value is string {
  if (typeof value !== 'string' || !/^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value)) return false;
  const time = new Date(value);
  return !Number.isNaN(time.getTime()) && time.toISOString() === value;
}

/** `limit` (1–100, default 25) and `cursor` from a query string. */
export function pageRequest(list: string, filters: Record<string, unknown>, query: { limit?: unknown; cursor?: unknown }): PageRequest {
  let limit = 25;
  if (query.limit !== undefined) {
    if (typeof query.limit !== 'string' || !/^\d{1,3}$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > 100) {
      throw new ApiError('invalid_request', 'limit must be a whole number from 1 to 100.', 'limit');
    }
    limit = Number(query.limit);
  }
  if (query.cursor === undefined || query.cursor === '') return { limit, after: null };
  if (typeof query.cursor !== 'string') throw new ApiError('invalid_request', 'cursor must be a string.', 'cursor');
  return { limit, after: decodeCursor(list, filters, query.cursor) };
}

/** Builds the page from up to limit + 1 rows fetched newest first. */
export function toPage<T>(list: string, filters: Record<string, unknown>, rows: T[], limit: number, positionOf: (row: T) => CursorPosition): Page<T> {
  const has_more = rows.length > limit;
  const data = has_more ? rows.slice(0, limit) : rows;
  return { data, has_more, next_cursor: has_more ? encodeCursor(list, filters, positionOf(data[data.length - 1])) : null };
}

/**
 * A list's cursor filters bound to the business whose list it is: the business is hashed into
 * the cursor with the filters, so a cursor is refused by every other business's list (§2 Lists).
 */
export function businessFilters(businessId: string, filters: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...filters, $business: businessId };
}

/**
 * A list's cursor filters bound to the signed-in person whose list it is (their sessions, their
 * passkeys): as businessFilters, a cursor is refused by every other person's list (§2 Lists).
 */
export function accountFilters(accountId: string, filters: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...filters, $account: accountId };
}

function filterHash(filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(Object.keys(filters).sort().map((k) => [k, filters[k] ?? null]));
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 12);
}

/**
 * The response body of a page whose rows are JSON texts already: the same text as
 * JSON.stringify of the Page of those rows parsed, without parsing or serialising them again.
 */
export function pageJson(page: Page<string>): string {
  return `{"data":[${page.data.join(',')}],"has_more":${page.has_more},"next_cursor":${JSON.stringify(page.next_cursor)}}`;
}

/**
 * A list's query string split into its page (`limit`, `cursor`, checked by pageRequest) and its
 * other parameters, each given once as a string — else 400 invalid_request naming it. Parameters
 * left undefined are left out. The list checks the names and values of the rest.
 */
export function splitListQuery(query: Record<string, unknown> | null | undefined): { page: { limit?: unknown; cursor?: unknown }; params: [string, string][] } {
  const page: { limit?: unknown; cursor?: unknown } = {};
  const params: [string, string][] = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (name === 'limit' || name === 'cursor') page[name] = value;
    else if (typeof value !== 'string') throw new ApiError('invalid_request', `${name} can be given once, as a string.`, name);
    else params.push([name, value]);
  }
  return { page, params };
}

/**
 * The query of a list without filters: its page (for pageRequest). Any other parameter is 400
 * invalid_request naming it.
 */
export function unfilteredListQuery(query: Record<string, unknown> | null | undefined): { limit?: unknown; cursor?: unknown } {
  const { page, params } = splitListQuery(query);
  for (const [name] of params) throw new ApiError('invalid_request', `${name} is not a known parameter.`, name);
  return page;
}

/**
 * The query of a list whose one filter is `status`, one of `statuses`: its page (for pageRequest)
 * and the status given (null: none). A status not listed, or any other parameter, is 400
 * invalid_request naming it.
 */
export function statusListQuery(query: Record<string, unknown> | null | undefined, statuses: readonly string[]): { page: { limit?: unknown; cursor?: unknown }; filters: { status: string | null } } {
  const filters: { status: string | null } = { status: null };
  const { page, params: given } = splitListQuery(query);
  for (const [name, value] of given) {
    if (name === 'status') {
      if (!statuses.includes(value)) throw new ApiError('invalid_request', `status must be one of ${statuses.join(', ')}.`, 'status');
      filters.status = value;
    } else {
      throw new ApiError('invalid_request', `${name} is not a known parameter.`, name);
    }
  }
  return { page, filters };
}

/** What newestFirstPage reads with (libs/database's Sql has this shape). */
export interface RowReader {
  query<R extends object>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/** A business's table a list reads: its name, the columns it selects, and the column of each filter. */
export interface NewestFirstTable {
  list: string;
  table: string;
  columns: string;
  filterColumns: Record<string, string>;
}

/**
 * A page of one business's rows, newest first (created_at, then id), after the cursor's row
 * (spec §2 Lists): each filter given (not null) is an equality on its column; the cursor is bound
 * to the list and to `filters`.
 */
export async function newestFirstPage<R extends { id: string; created_at: Date | string }>(
  db: RowReader,
  from: NewestFirstTable,
  businessId: string,
  filters: Record<string, unknown>,
  page: { limit?: unknown; cursor?: unknown },
): Promise<Page<R>> {
  const bound = businessFilters(businessId, filters);
  const { limit, after } = pageRequest(from.list, bound, page);
  const params: unknown[] = [businessId];
  const param = (value: unknown): string => `$${params.push(value)}`;
  const where = ['business_id = $1'];
  for (const [name, value] of Object.entries(filters)) if (value !== null) where.push(`${from.filterColumns[name]} = ${param(value)}`);
  if (after) where.push(`(created_at, id) < (${param(after.created_at)}::timestamptz, ${param(after.id)})`);
  const { rows } = await db.query<R>(`SELECT ${from.columns} FROM ${from.table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${param(limit + 1)}`, params);
  return toPage(from.list, bound, rows, limit, (r) => ({ created_at: new Date(r.created_at).toISOString(), id: r.id }));
}
