import { ApiError } from '@lib/http';
import type { PaymentStatus } from '../domain/payment.decider';
import { METADATA_MAX_KEY_LENGTH, METADATA_MAX_VALUE_LENGTH, metadataValueLength } from '../domain/metadata';

/**
 * GET /payments query parameters, checked and normalised (decision 0012). Accepts the flat shape
 * Fastify's query parser gives (`{'metadata[order]': 'x', 'created[gte]': '…'}`) and the nested
 * one (`{metadata: {order: 'x'}, created: {gte: '…'}}`):
 * - `status`: one status or several, comma separated (or repeated);
 * - `metadata[<key>]=<value>`: every pair must match;
 * - `customer_id` (a `cst_` id; `customer` is the same filter under its first name), `link_id`
 *   (a `lnk_` id: the payments a link made), `reference`;
 * - `created[gte|gt|lte|lt]`: ISO 8601 timestamps (a date alone is midnight UTC);
 * - `limit`, `cursor`: libs/http pagination.
 * Anything else, or a bad value, is 400 invalid_request naming the parameter.
 */

export const PAYMENT_STATUSES: readonly PaymentStatus[] = ['pending', 'underpaid', 'needs_review', 'succeeded', 'failed', 'canceled'];

export type CreatedBound = 'gte' | 'gt' | 'lte' | 'lt';
const BOUNDS: readonly CreatedBound[] = ['gte', 'gt', 'lte', 'lt'];

export interface PaymentListFilters {
  /** Sorted, without repeats; empty = every status. */
  status: PaymentStatus[];
  /** Sorted by key. */
  metadata: [string, string][];
  customer: string | null;
  /** `link_id`: payments a link made (decision 0030). */
  link: string | null;
  reference: string | null;
  created: Partial<Record<CreatedBound, string>>;
}

export interface ParsedPaymentListQuery {
  filters: PaymentListFilters;
  /** `limit` and `cursor` as given, for pageRequest. */
  page: { limit?: unknown; cursor?: unknown };
}

const METADATA_KEY = /^[A-Za-z0-9_.-]+$/;
const CUSTOMER_ID = /^cst_[A-Za-z0-9]{1,64}$/;
const LINK_ID = /^lnk_[A-Za-z0-9]{1,64}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;
const BRACKETED = /^(metadata|created)\[([^\]]*)\]$/;

function refuse(field: string, message: string): never {
  throw new ApiError('invalid_request', message, field);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function single(field: string, value: unknown): string {
  if (typeof value !== 'string') refuse(field, Array.isArray(value) ? `${field} can be given once.` : `${field} must be a string.`);
  return value;
}

function statusList(value: unknown): PaymentStatus[] {
  const parts = (Array.isArray(value) ? value : [value]).map((v) => single('status', v)).flatMap((v) => v.split(','));
  const out = new Set<PaymentStatus>();
  for (const raw of parts) {
    const status = raw.trim();
    if (!(PAYMENT_STATUSES as readonly string[]).includes(status)) refuse('status', `status must be one or more of ${PAYMENT_STATUSES.join(', ')}, comma separated.`);
    out.add(status as PaymentStatus);
  }
  return [...out].sort();
}

function metadataPair(key: string, value: unknown): [string, string] {
  const field = `metadata[${key}]`;
  if (key.length === 0 || key.length > METADATA_MAX_KEY_LENGTH || !METADATA_KEY.test(key)) {
    refuse(field, `Metadata keys are 1 to ${METADATA_MAX_KEY_LENGTH} letters, digits, "_", "." or "-".`);
  }
  const text = single(field, value);
  if (metadataValueLength(text) > METADATA_MAX_VALUE_LENGTH) refuse(field, `Metadata values are at most ${METADATA_MAX_VALUE_LENGTH} characters.`);
  return [key, text];
}

function createdBound(bound: string, value: unknown): [CreatedBound, string] {
  const field = `created[${bound}]`;
  if (!(BOUNDS as readonly string[]).includes(bound)) refuse(field, 'created takes gte, gt, lte or lt, as created[gte]=<timestamp>.');
  const text = single(field, value);
  const ms = ISO_TIME.test(text) ? Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text) : NaN;
  if (Number.isNaN(ms)) refuse(field, `${field} must be an ISO 8601 timestamp, such as 2025-01-31T12:00:00.000Z.`);
  return [bound as CreatedBound, new Date(ms).toISOString()];
}

export function parseListPaymentsQuery(query: Record<string, unknown> | null | undefined): ParsedPaymentListQuery {
  const filters: PaymentListFilters = { status: [], metadata: [], customer: null, link: null, reference: null, created: {} };
  const metadata = new Map<string, string>();
  const page: { limit?: unknown; cursor?: unknown } = {};
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    const bracketed = BRACKETED.exec(name);
    if (bracketed) {
      if (bracketed[1] === 'metadata') {
        const [key, text] = metadataPair(bracketed[2], value);
        metadata.set(key, text);
      } else {
        const [bound, at] = createdBound(bracketed[2], value);
        filters.created[bound] = at;
      }
      continue;
    }
    switch (name) {
      case 'status':
        filters.status = statusList(value);
        break;
      case 'customer':
      case 'customer_id': {
        const text = single(name, value);
        if (!CUSTOMER_ID.test(text)) refuse(name, `${name} must be a customer id (cst_…).`);
        if (filters.customer !== null && filters.customer !== text) refuse(name, 'customer and customer_id name the same filter: give one.');
        filters.customer = text;
        break;
      }
      case 'link_id': {
        const text = single('link_id', value);
        if (!LINK_ID.test(text)) refuse('link_id', 'link_id must be a link id (lnk_…).');
        filters.link = text;
        break;
      }
      case 'reference': {
        const text = single('reference', value);
        if (text.length === 0 || text.length > 500) refuse('reference', 'reference must be 1 to 500 characters.');
        filters.reference = text;
        break;
      }
      case 'metadata':
        if (!isPlainObject(value)) refuse('metadata', 'Filter by metadata with metadata[<key>]=<value>.');
        for (const [key, text] of Object.entries(value)) {
          const [k, v] = metadataPair(key, text);
          metadata.set(k, v);
        }
        break;
      case 'created':
        if (!isPlainObject(value)) refuse('created', 'Filter by creation time with created[gte]=<timestamp> (gte, gt, lte, lt).');
        for (const [bound, text] of Object.entries(value)) {
          const [b, at] = createdBound(bound, text);
          filters.created[b] = at;
        }
        break;
      case 'limit':
        page.limit = value;
        break;
      case 'cursor':
        page.cursor = value;
        break;
      default:
        refuse(name, `${name} is not a known parameter.`);
    }
  }
  filters.metadata = [...metadata.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { filters, page };
}

/** The filters as the cursor binds them (libs/http pagination hashes this object). */
export function cursorFilters(filters: PaymentListFilters): Record<string, unknown> {
  return {
    status: filters.status,
    metadata: filters.metadata,
    customer: filters.customer,
    reference: filters.reference,
    created: BOUNDS.map((b) => filters.created[b] ?? null),
  };
}
