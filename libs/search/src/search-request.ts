import { type Access, type Resource, keyAllows } from '@lib/businesses';
import { ApiError, pageRequest, splitListQuery } from '@lib/http';
import { MAX_QUERY_LENGTH, SEARCH_KINDS, SearchKind, isSearchKind } from './terms';

/** The permission each kind is read with (spec §5: restricted keys search only what they can read). */
export const KIND_RESOURCE: Readonly<Record<SearchKind, Resource>> = { link: 'links', customer: 'customers', payment: 'payments' };

/** The key a request came with, as far as search needs it. */
export interface SearchingKey {
  type: 'secret' | 'publishable' | 'restricted';
  permissions: Partial<Record<Resource, Access>> | null;
}

/** GET /search as read from its query string and the key's grants. */
export interface SearchRequest {
  q: string;
  kinds: SearchKind[];
  includeCustomer: boolean;
  /** Whether payments match on their customer's name and e-mail: only for a key that reads customers (decision 0031, addendum of 2026-11-29). */
  paymentCustomerFields: boolean;
  page: { limit?: unknown; cursor?: unknown };
}

const bad = (field: string, message: string) => new ApiError('invalid_request', message, field);

/**
 * Reads GET /search's query (spec §4): `q` 1–100 characters, `kind` (payment, customer, link,
 * comma separated; default every kind the key reads), `include` (customer), `limit`, `cursor`;
 * anything else is 400 invalid_request naming it, and `limit`'s range. Then the key (decision
 * 0031): a kind asked for that the key cannot read, `include=customer` without customers:read, or
 * no readable kind at all is 403 permission_denied — the route's guard leaves this to here, so
 * the 400s come first for every key (audit "rest" finding 6). A `cursor` is checked with the
 * search it belongs to (its kinds), after the key.
 */
export function parseSearchRequest(query: Record<string, unknown> | null | undefined, key: SearchingKey): SearchRequest {
  let q: string | null = null;
  let kinds: SearchKind[] | null = null;
  let includeCustomer = false;
  const { page, params } = splitListQuery(query);
  for (const [name, value] of params) {
    if (name === 'q') {
      if (value.trim() === '') throw bad('q', 'q must not be empty.');
      if ([...value].length > MAX_QUERY_LENGTH) throw bad('q', `q must be at most ${MAX_QUERY_LENGTH} characters.`);
      q = value;
    } else if (name === 'kind') {
      const listed = value.split(',').map((k) => k.trim());
      const unknown = listed.find((k) => !isSearchKind(k));
      if (unknown !== undefined) throw bad('kind', `kind must be one or more of ${SEARCH_KINDS.join(', ')}, comma separated.`);
      kinds = SEARCH_KINDS.filter((k) => listed.includes(k));
    } else if (name === 'include') {
      const listed = value.split(',').map((k) => k.trim());
      if (listed.some((k) => k !== 'customer')) throw bad('include', 'include takes customer.');
      includeCustomer = true;
    } else {
      throw bad(name, `${name} is not a known parameter.`);
    }
  }
  if (q === null) throw bad('q', 'q is required: the text to search for.');
  pageRequest('search', {}, { limit: page.limit }); // limit's range now; the page (and cursor) is read again with the search's filters
  const readable = SEARCH_KINDS.filter((k) => keyAllows(key, KIND_RESOURCE[k], 'read'));
  const denied = (message: string, field: string | null) => new ApiError('permission_denied', message, field);
  if (kinds === null) {
    if (readable.length === 0) throw denied('This key can read none of the kinds search finds (payments, customers, links).', null);
    kinds = readable;
  } else {
    const refused = kinds.find((k) => !readable.includes(k));
    if (refused !== undefined) throw denied(`This key cannot read ${KIND_RESOURCE[refused]}.`, 'kind');
  }
  if (includeCustomer && !keyAllows(key, 'customers', 'read')) throw denied('include=customer needs customers:read.', 'include');
  return { q, kinds, includeCustomer, paymentCustomerFields: keyAllows(key, 'customers', 'read'), page };
}
