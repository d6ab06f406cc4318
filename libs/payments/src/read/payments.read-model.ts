import { ChainRegistry, defaultRegistry } from '@lib/chains';
import type { Sql } from '@lib/database';
import { Page, businessFilters, pageJson, pageRequest, toPage } from '@lib/http';
import { CheckoutRules, DEFAULT_CHECKOUT_RULES } from '../domain/checkout-rules';
import { CheckoutView, CheckoutViewState, checkoutView } from './checkout-view';
import { cursorFilters, parseListPaymentsQuery } from './list-payments-query';
import { PAYMENT_VIEW_VERSION, PaymentView, PaymentViewState, paymentUrl, storedPaymentView, withPaymentUrl } from './payment-view';
import { ReceiptView, receiptView } from './receipt-view';

/**
 * Queries over the `payments` projection (tables of `paymentsProjector`) and, for receipts, the
 * `businesses` table of libs/businesses. Never folds a stream: every answer is a row (or a page
 * of rows) turned into the spec's object at read time. Scoped by business wherever the caller is
 * a business: another business's id reads as not found (null).
 *
 * A payment is answered from its stored view (`payments.view`, the object as JSON text with its
 * url left null, decision 0018) with the url put in, so a page is one indexed query and a string
 * concatenation. A row whose view is missing or of another PAYMENT_VIEW_VERSION (a table made by
 * older code, until `projections rebuild payments`), or a read model given its own registry (the
 * stored views use the default one), renders from `state` instead: the same JSON either way.
 */

export interface PaymentsReadModelOptions {
  /** Base of the hosted checkout page (`{checkout_url}`); payment urls are `${base}/${code}`. */
  checkoutBaseUrl: string;
  /** Explorer links (a deployment may override explorers); the default registry otherwise. */
  registry?: ChainRegistry;
  /**
   * What a checkout's payment URIs name (its token contracts: EVM_TOKENS_<NETWORK>,
   * registryWithTokens); `registry` otherwise. Checkout objects are rendered at each read, so
   * this changes no stored view.
   */
  checkoutRegistry?: ChainRegistry;
}

export const PAYMENTS_LIST = 'payments';

/** A `payments` row as the payment queries select it (`columns`): the stored view, or else the state. */
interface PaymentRow {
  id: string;
  created_at: Date;
  code: string | null;
  link_id: string | null;
  view: string | null;
  state: PaymentViewState | null;
}

export class PaymentsReadModel {
  /** `view` when it is usable (see the class comment), else `state`: only one of them is read and parsed. */
  private readonly columns: string;

  constructor(
    private readonly db: Sql,
    private readonly options: PaymentsReadModelOptions,
  ) {
    const stored = (options.registry ?? defaultRegistry) === defaultRegistry;
    const usable = `view_version = ${PAYMENT_VIEW_VERSION}`;
    this.columns = stored
      ? `id, created_at, code, link_id, CASE WHEN ${usable} THEN view END AS view, CASE WHEN ${usable} THEN NULL ELSE state END AS state`
      : 'id, created_at, code, link_id, NULL::text AS view, state';
  }

  /** The payment as its endpoint returns it, or null (unknown, or another business's). */
  async getPayment(businessId: string, paymentId: string): Promise<PaymentView | null> {
    const { rows } = await this.db.query<PaymentRow>(`SELECT ${this.columns} FROM payments WHERE id = $1 AND business_id = $2`, [paymentId, businessId]);
    return rows[0] ? (JSON.parse(this.json(rows[0])) as PaymentView) : null;
  }

  /** Several payments of a business by id (search results, webhook payloads), in the order asked; unknown ids are left out. */
  async getPayments(businessId: string, paymentIds: readonly string[]): Promise<PaymentView[]> {
    if (paymentIds.length === 0) return [];
    const { rows } = await this.db.query<PaymentRow>(`SELECT ${this.columns} FROM payments WHERE id = ANY($1::text[]) AND business_id = $2`, [[...paymentIds], businessId]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return paymentIds.flatMap((id) => (byId.has(id) ? [JSON.parse(this.json(byId.get(id)!)) as PaymentView] : []));
  }

  /**
   * GET /payments: newest first (created_at, then id, both descending), filtered (see
   * parseListPaymentsQuery), paged by a cursor bound to this list and its filters. Throws
   * ApiError invalid_request for a bad parameter or a foreign cursor.
   */
  async listPayments(businessId: string, query: Record<string, unknown> | null | undefined): Promise<Page<PaymentView>> {
    const page = await this.listPage(businessId, query);
    return { ...page, data: page.data.map((json) => JSON.parse(json) as PaymentView) };
  }

  /** listPayments as the response body, JSON text: the stored views joined, nothing parsed or serialised again. */
  async listPaymentsJson(businessId: string, query: Record<string, unknown> | null | undefined): Promise<string> {
    return pageJson(await this.listPage(businessId, query));
  }

  /** A page of payments, each as its JSON text. */
  private async listPage(businessId: string, query: Record<string, unknown> | null | undefined): Promise<Page<string>> {
    const { filters, page } = parseListPaymentsQuery(query);
    const bound = businessFilters(businessId, cursorFilters(filters));
    const { limit, after } = pageRequest(PAYMENTS_LIST, bound, page);
    const params: unknown[] = [businessId];
    const where = ['business_id = $1'];
    const param = (value: unknown): string => `$${params.push(value)}`;
    if (filters.status.length > 0) where.push(`status = ANY(${param(filters.status)}::text[])`);
    if (filters.metadata.length > 0) where.push(`metadata @> ${param(JSON.stringify(Object.fromEntries(filters.metadata)))}::jsonb`);
    if (filters.customer !== null) where.push(`customer_id = ${param(filters.customer)}`);
    if (filters.link !== null) where.push(`link_id = ${param(filters.link)}`);
    if (filters.reference !== null) where.push(`reference = ${param(filters.reference)}`);
    const ops = { gte: '>=', gt: '>', lte: '<=', lt: '<' } as const;
    for (const [bound, at] of Object.entries(filters.created) as [keyof typeof ops, string][]) where.push(`created_at ${ops[bound]} ${param(at)}::timestamptz`);
    if (after) where.push(`(created_at, id) < (${param(after.created_at)}::timestamptz, ${param(after.id)})`);
    const { rows } = await this.db.query<PaymentRow>(
      `SELECT ${this.columns} FROM payments WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${param(limit + 1)}`,
      params,
    );
    // created_at is the state's (ISO with milliseconds, eventTime), so the Date gives the same text back
    const page_ = toPage(PAYMENTS_LIST, bound, rows, limit, (r) => ({ created_at: r.created_at.toISOString(), id: r.id }));
    return { ...page_, data: page_.data.map((r) => this.json(r)) };
  }

  /** The payment a hosted checkout page's code names (POST /checkouts `payment_code`), or null. */
  async paymentIdByCode(code: string): Promise<{ paymentId: string; businessId: string } | null> {
    const { rows } = await this.db.query<{ id: string; business_id: string }>(`SELECT id, business_id FROM payments WHERE code = $1 AND business_id IS NOT NULL`, [code]);
    return rows[0] ? { paymentId: rows[0].id, businessId: rows[0].business_id } : null;
  }

  /**
   * The business a payment belongs to, as the payment use cases need it (active? simulated?),
   * from libs/businesses' `businesses` table (as receipts read it), or null; with its test clock's
   * offset read in the same statement (`clockOffsetMs`, 0 without a test clock).
   */
  async actingBusiness(businessId: string): Promise<{ id: string; simulated: boolean; status: string; checkout: CheckoutRules; clockOffsetMs: number } | null> {
    const { rows } = await this.db.query<{ id: string; simulated: boolean; status: string; settings: Partial<CheckoutRules> | null; clock_offset_ms: string | number | bigint }>(
      `SELECT b.id, b.simulated, b.status, s.settings, COALESCE((SELECT c.offset_ms FROM business_clocks c WHERE c.business_id = b.id), 0) AS clock_offset_ms
         FROM businesses b LEFT JOIN checkout_settings s ON s.business_id = b.id WHERE b.id = $1`,
      [businessId],
    );
    const row = rows[0];
    if (!row) return null;
    const { settings, clock_offset_ms, ...business } = row;
    return { ...business, checkout: { ...DEFAULT_CHECKOUT_RULES, ...(settings ?? {}) }, clockOffsetMs: Number(clock_offset_ms) };
  }

  /**
   * A checkout, or null. `businessId` scopes it to one business (a key's request); without it the
   * checkout is read as the public routes do. `secretFields` adds email, reporting, fee_rate_bps.
   */
  async getCheckout(checkoutId: string, options: { secretFields: boolean; businessId?: string }): Promise<CheckoutView | null> {
    const params: unknown[] = [checkoutId];
    const scope = options.businessId === undefined ? '' : ` AND c.business_id = $${params.push(options.businessId)}`;
    const withPayment = options.secretFields ? ', p.state AS payment' : '';
    const join = options.secretFields ? ' LEFT JOIN payments p ON p.id = c.payment_id' : '';
    const { rows } = await this.db.query<{ state: CheckoutViewState; payment?: PaymentViewState | null }>(
      `SELECT c.state${withPayment} FROM checkouts c${join} WHERE c.id = $1${scope}`,
      params,
    );
    const row = rows[0];
    if (!row) return null;
    return checkoutView(row.state, { registry: this.options.checkoutRegistry ?? this.options.registry, secret: options.secretFields ? { payment: row.payment ?? null } : undefined });
  }

  /**
   * The addresses of real (not simulated) crypto checkouts on `network` still waiting for money —
   * open, or awaiting the rest of a short payment — whose mempool a chain watcher looks at
   * (decision 0023, addendum 2026-11-29). A checkout held past its quote's end by a transaction
   * seen there is still open, so it stays on the list until that transaction is mined or dropped.
   */
  async awaitingAddresses(network: string): Promise<{ address: string; sighted: boolean }[]> {
    // sighted: the checkout's row shows a transaction seen in the mempool, not mined or dropped yet
    const { rows } = await this.db.query<{ address: string; sighted: boolean }>(
      `SELECT state->>'address' AS address, COALESCE(jsonb_array_length(state->'sightings'), 0) > 0 AS sighted FROM checkouts
        WHERE status IN ('open', 'awaiting_customer') AND state->>'rail' = 'crypto' AND state->>'network' = $1
          AND state->>'simulated' = 'false' AND state->>'address' IS NOT NULL
        ORDER BY created_at`,
      [network],
    );
    return rows;
  }

  /** The public receipt of a payment (GET /public/receipts/{id}), or null. */
  async getReceipt(paymentId: string): Promise<ReceiptView | null> {
    const { rows } = await this.db.query<{ state: PaymentViewState; name: string | null; support_email: string | null; website: string | null }>(
      // the name and support address the business chose to show customers (checkout settings, decision 0028), else its own
      `SELECT p.state, COALESCE(s.settings->>'display_name', b.name) AS name, COALESCE(s.settings->>'support_email', b.support_email) AS support_email, b.website
       FROM payments p LEFT JOIN businesses b ON b.id = p.business_id LEFT JOIN checkout_settings s ON s.business_id = p.business_id WHERE p.id = $1`,
      [paymentId],
    );
    const row = rows[0];
    if (!row) return null;
    const business = row.name === null ? null : { name: row.name, support_email: row.support_email, website: row.website };
    return receiptView(row.state, business, this.options.registry);
  }

  /** The payment as its endpoint returns it, from a view state (the projection's, or one folded from just-decided events). */
  render(state: PaymentViewState): PaymentView {
    return JSON.parse(withPaymentUrl(storedPaymentView(state, this.options.registry), paymentUrl(state, this.options.checkoutBaseUrl))) as PaymentView;
  }

  /** A payment row's object as JSON text: the stored view, or else the same rendering of its state, with its url. */
  private json(row: PaymentRow): string {
    const view = row.view ?? storedPaymentView(row.state!, this.options.registry);
    return withPaymentUrl(view, paymentUrl(row, this.options.checkoutBaseUrl));
  }
}
