import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import { CustomersReadModel } from '@lib/customers';
import { LinksReadModel } from '@lib/links';
import type { Sql } from '@lib/database';
import { ApiError, Page, businessFilters, pageRequest, toPage } from '@lib/http';
import { PaymentsReadModel } from '@lib/payments';
import type { SearchRequest } from './search-request';
import { SearchKind, normaliseQuery } from './terms';

export const SEARCH_LIST = 'search';

interface Hit {
  kind: SearchKind;
  object_id: string;
  created_at: Date | string;
  tier: number;
  krank: number;
}

/**
 * GET /search over the `search` projection (decision 0031): the business's documents of the
 * kinds asked that match `q` exactly (ids, codes, e-mails, hashes, addresses: rank 0), by word
 * prefix or amount (rank 1), or anywhere (rank 2); ties links, customers, payments, newest first
 * (created_at, then id). Pages by a cursor bound to this list, its query and kinds. For a key
 * that does not read customers, payments match and rank on their own columns (`own_exact`,
 * `own_text`: without the customer's name and e-mails), checked on the rows the indexes found.
 */
@Injectable()
export class SearchReadModel {
  constructor(
    @Inject(DATABASE) private readonly db: Sql,
    private readonly payments: PaymentsReadModel,
    private readonly customers: CustomersReadModel,
    private readonly links: LinksReadModel,
  ) {}

  async search(businessId: string, request: SearchRequest): Promise<Page<object>> {
    const query = normaliseQuery(request.q);
    const filters = businessFilters(businessId, {
      q: query.text,
      kind: request.kinds.join(','),
      include: request.includeCustomer ? 'customer' : null,
      ...(request.paymentCustomerFields ? {} : { payment_customer: 'hidden' }), // another ranking: another list
    });
    const { limit, after } = pageRequest(SEARCH_LIST, filters, request.page);
    const params: unknown[] = [businessId, query.text, query.amount, query.wordPrefix, request.kinds, query.like, !request.paymentCustomerFields, query.currencies];
    // an amount form, in one of the currencies the query names when it names any (decision 0031, addendum 2026-11-29)
    const amountMatch = `($3::text IS NOT NULL AND amounts @> ARRAY[$3::text] AND ($8::text[] IS NULL OR parts->'amount'->>'currency' = ANY($8::text[])))`;
    const param = (value: unknown): string => `$${params.push(value)}`;
    let where = 'true';
    if (after) {
      const position = /^([0-2])\.([0-2])\.(.+)$/.exec(after.id);
      if (!position) throw new ApiError('invalid_request', 'This cursor does not belong to this list (or its filters changed).', 'cursor');
      const [tier, krank, id] = [param(Number(position[1])), param(Number(position[2])), param(position[3])];
      where = `(tier, krank) > (${tier}::int, ${krank}::int) OR ((tier, krank) = (${tier}::int, ${krank}::int) AND (created_at, object_id) < (${param(after.created_at)}::timestamptz, ${id}))`;
    }
    const { rows } = await this.db.query<Hit>(
      `SELECT kind, object_id, created_at, tier, krank FROM (
         SELECT kind, object_id, created_at,
           CASE WHEN m_exact @> ARRAY[$2::text] THEN 0 WHEN ${amountMatch} OR m_text ~ $4 THEN 1 ELSE 2 END AS tier,
           CASE kind WHEN 'link' THEN 0 WHEN 'customer' THEN 1 ELSE 2 END AS krank
         FROM (
           SELECT kind, object_id, created_at, amounts, parts,
             CASE WHEN $7::boolean AND kind = 'payment' THEN own_exact ELSE exact END AS m_exact,
             CASE WHEN $7::boolean AND kind = 'payment' THEN own_text ELSE text END AS m_text
           FROM search_documents
           WHERE business_id = $1 AND kind = ANY($5::text[])
             AND (exact @> ARRAY[$2::text] OR ${amountMatch} OR text LIKE $6)
         ) found
         WHERE m_exact @> ARRAY[$2::text] OR ${amountMatch} OR m_text LIKE $6
       ) hits
       WHERE ${where}
       ORDER BY tier, krank, created_at DESC, object_id DESC
       LIMIT ${param(limit + 1)}`,
      params,
    );
    const page = toPage(SEARCH_LIST, filters, rows, limit, (r) => ({ created_at: new Date(r.created_at).toISOString(), id: `${r.tier}.${r.krank}.${r.object_id}` }));
    return { ...page, data: await this.objects(businessId, page.data, request.includeCustomer) };
  }

  /** The hits as their endpoints return them, in the hits' order. */
  private async objects(businessId: string, hits: Hit[], includeCustomer: boolean): Promise<object[]> {
    const ids = (kind: SearchKind) => hits.filter((h) => h.kind === kind).map((h) => h.object_id);
    const found = new Map<string, object>();
    const [links, customers, payments] = await Promise.all([
      ids('link').length > 0 ? this.links.getMany(businessId, ids('link')) : [],
      this.customers.getMany(businessId, ids('customer')),
      this.payments.getPayments(businessId, ids('payment')),
    ]);
    for (const link of links) found.set(`link:${link.id}`, link);
    for (const customer of customers) found.set(`customer:${customer.id}`, customer);
    if (includeCustomer) {
      const named = [...new Set(payments.flatMap((p) => (p.customer_id ? [p.customer_id] : [])))];
      const theirs = new Map((await this.customers.getMany(businessId, named)).map((c) => [c.id, c]));
      for (const payment of payments) found.set(`payment:${payment.id}`, { ...payment, customer: payment.customer_id ? (theirs.get(payment.customer_id) ?? null) : null });
    } else {
      for (const payment of payments) found.set(`payment:${payment.id}`, payment);
    }
    return hits.flatMap((h) => {
      const object = found.get(`${h.kind}:${h.object_id}`);
      return object ? [object] : [];
    });
  }
}


