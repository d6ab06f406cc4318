import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { ApiError, NewestFirstTable, Page, newestFirstPage, splitListQuery } from '@lib/http';
import { KnownFromPayments } from './customer.decider';
import { emailKey } from './identity';
import { isCustomerId } from './stream-categories';
import { CustomerRow, CustomerView, customerView } from './views';

export const CUSTOMERS_LIST = 'customers';

const COLUMNS = `id, business_id, mode, email, name, note, blocked, origin, created_at, updated_at, payments_count, incomplete_count, stats_currency, volume, average, last_payment_at, preferred_rail`;

const CUSTOMERS_TABLE: NewestFirstTable = { list: CUSTOMERS_LIST, table: 'customers', columns: COLUMNS, filterColumns: { email: 'email_key', blocked: 'blocked' } };

/** Queries over the `customers` projection, scoped by business: another business's customer reads as none. */
@Injectable()
export class CustomersReadModel {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  async row(businessId: string, customerId: string): Promise<CustomerRow | null> {
    if (!isCustomerId(customerId)) return null;
    const { rows } = await this.db.query<CustomerRow>(`SELECT ${COLUMNS} FROM customers WHERE id = $1 AND business_id = $2`, [customerId, businessId]);
    return rows[0] ?? null;
  }

  async get(businessId: string, customerId: string): Promise<CustomerView | null> {
    const row = await this.row(businessId, customerId);
    return row === null ? null : customerView(row);
  }

  /** Several customers of the business (search results, a payment's customer), unknown ids and other businesses' left out. */
  async getMany(businessId: string, customerIds: readonly string[]): Promise<CustomerView[]> {
    const ids = customerIds.filter(isCustomerId);
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<CustomerRow>(`SELECT ${COLUMNS} FROM customers WHERE id = ANY($1::text[]) AND business_id = $2`, [ids, businessId]);
    return rows.map(customerView);
  }

  /** The customer as known from payments (for its first recorded change), or null when it is not one of this business's. */
  async knownFromPayments(businessId: string, customerId: string): Promise<KnownFromPayments | null> {
    const row = await this.row(businessId, customerId);
    return row === null ? null : { businessId: row.business_id, mode: row.mode === 'live' ? 'live' : 'test', email: row.email, createdAt: new Date(row.created_at).toISOString() };
  }

  /** Whether any business has a customer with this id (a payment named it, or it was recorded). */
  async exists(customerId: string): Promise<boolean> {
    const { rows } = await this.db.query(`SELECT 1 FROM customers WHERE id = $1`, [customerId]);
    return rows.length > 0;
  }

  /** Whether one of these customers of the business is blocked. */
  async anyBlocked(businessId: string, customerIds: readonly string[]): Promise<boolean> {
    if (customerIds.length === 0) return false;
    const { rows } = await this.db.query(`SELECT 1 FROM customers WHERE business_id = $1 AND id = ANY($2::text[]) AND blocked LIMIT 1`, [businessId, [...customerIds]], 'customers_blocked');
    return rows.length > 0;
  }

  /**
   * GET /customers: newest first (created_at, then id), filtered by `email` (case-insensitive,
   * exact) and `blocked` (true or false), paged by a cursor bound to this list and its filters.
   */
  async list(businessId: string, query: Record<string, unknown> | null | undefined): Promise<Page<CustomerView>> {
    const filters: { email: string | null; blocked: boolean | null } = { email: null, blocked: null };
    const { page, params: given } = splitListQuery(query);
    for (const [name, value] of given) {
      if (name === 'email') {
        if (value.trim() === '' || value.length > 254) throw new ApiError('invalid_request', 'email must be 1 to 254 characters.', 'email');
        filters.email = emailKey(value);
      } else if (name === 'blocked') {
        if (value !== 'true' && value !== 'false') throw new ApiError('invalid_request', 'blocked must be true or false.', 'blocked');
        filters.blocked = value === 'true';
      } else {
        throw new ApiError('invalid_request', `${name} is not a known parameter.`, name);
      }
    }
    const paged = await newestFirstPage<CustomerRow>(this.db, CUSTOMERS_TABLE, businessId, filters, page);
    return { ...paged, data: paged.data.map(customerView) };
  }
}
