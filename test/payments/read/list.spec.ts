import { createRegistry } from '@lib/chains';
import { Database, connectPostgres } from '@lib/database';
import { ApiError, encodeCursor } from '@lib/http';
import { PaymentViewState, PaymentsReadModel, paymentView, paymentsProjector } from '../../../libs/payments/src/read';
import { TestDatabase, createTestDatabase } from '../../support/postgres';
import { BIZ_A, BIZ_B, CHECKOUT_BASE, MIN, World, hash, iso } from './fixtures';

/**
 * GET /payments over the projection in PostgreSQL: newest first with an id tiebreak, every
 * filter (status, metadata[key] in the flat Fastify shape and nested, customer, reference,
 * created range), cursor paging across pages, cursors bound to their list and filters, bad
 * values refused with invalid_request naming the parameter, and one business never seeing
 * another's payments. The response body (listPaymentsJson, joined from the stored views) is the
 * JSON text of that page, the same as rendering every payment from its state.
 */

interface Expected {
  id: string;
  createdAt: string;
  status: string;
  order: string;
  tier: string;
  customer: string | null;
  reference: string;
}

let database: TestDatabase;
let db: Database;
let read: PaymentsReadModel;
const expected: Expected[] = [];

beforeAll(async () => {
  const w = new World();
  for (let i = 0; i < 30; i++) {
    const id = `pmt_l${String(i).padStart(2, '0')}`;
    // three payments share each minute: the id breaks the tie
    const createdMs = Math.floor(i / 3) * MIN;
    const order = `o-${i % 5}`;
    const tier = i % 2 ? 'gold' : 'basic';
    const customer = i % 3 === 0 ? 'cst_a' : i % 3 === 1 ? 'cst_b' : null;
    const reference = `ref-${i}`;
    w.at(createdMs).create(id, { metadata: { order, tier }, customerId: customer, reference, expiresAt: iso(createdMs + 30 * MIN) });
    let status = 'pending';
    if (i % 10 === 1) {
      w.at(createdMs + 5 * MIN).payment(id, { type: 'CancelPayment' });
      status = 'canceled';
    } else if (i % 10 === 2) {
      w.at(createdMs + 31 * MIN).payment(id, { type: 'ExpirePayment' });
      status = 'failed';
    } else if (i % 10 === 3) {
      w.at(createdMs + MIN).open(`chk_l${i}`, id);
      w.at(createdMs + 2 * MIN).send(`chk_l${i}`, 'exact', hash(100 + i));
      w.at(createdMs + 3 * MIN).confirm(`chk_l${i}`, hash(100 + i));
      status = 'succeeded';
    }
    expected.push({ id, createdAt: iso(createdMs), status, order, tier, customer, reference });
  }
  for (let i = 0; i < 5; i++) w.at(i * MIN).create(`pmt_b${i}`, { business: BIZ_B, metadata: { order: 'o-1', tier: 'gold' }, customerId: 'cst_a', reference: 'ref-1' });

  database = await createTestDatabase('pay_list');
  db = connectPostgres(database.url);
  await db.exec(paymentsProjector.schema);
  // projected in batches of 7, as a runner would
  const log = w.recorded();
  for (let i = 0; i < log.length; i += 7) await db.transaction((tx) => paymentsProjector.handle(log.slice(i, i + 7), tx));
  read = new PaymentsReadModel(db, { checkoutBaseUrl: CHECKOUT_BASE });
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

/** Newest first, ties by id descending. */
const newestFirst = (rows: Expected[]) =>
  [...rows].sort((a, b) => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : -1)).map((r) => r.id);

/** Every id a query lists, following next_cursor page by page. */
async function everyPage(query: Record<string, unknown>, businessId = BIZ_A): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (;;) {
    const page = await read.listPayments(businessId, cursor ? { ...query, cursor } : query);
    pages++;
    ids.push(...page.data.map((p) => p.id));
    if (!page.has_more) {
      expect(page.next_cursor).toBeNull();
      return { ids, pages };
    }
    expect(page.data.length).toBe(Number(query.limit ?? 25));
    cursor = page.next_cursor;
  }
}

async function refusal(query: Record<string, unknown>): Promise<{ code: string; field: string | null }> {
  try {
    await read.listPayments(BIZ_A, query);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return { code: (error as ApiError).code, field: (error as ApiError).field };
  }
  throw new Error(`expected ${JSON.stringify(query)} to be refused`);
}

describe('listPayments', () => {
  it('lists newest first (id descending within a time), 25 by default, whole payment objects', async () => {
    const page = await read.listPayments(BIZ_A, {});
    expect(page.data.map((p) => p.id)).toEqual(newestFirst(expected).slice(0, 25));
    expect(page.has_more).toBe(true);
    expect(typeof page.next_cursor).toBe('string');
    expect(page.data[0]).toMatchObject({ kind: 'payment', url: `${CHECKOUT_BASE}/code_${page.data[0].id}` });
    expect(page.data[0].events[0].type).toBe('created');
  });

  it('pages through everything with a cursor, page boundaries inside a tie included', async () => {
    const { ids, pages } = await everyPage({ limit: '4' }); // 4 is not a multiple of the 3-payment ties
    expect(ids).toEqual(newestFirst(expected));
    expect(pages).toBe(8);
    expect(new Set(ids).size).toBe(30);
  });

  it('filters by status, one or several (comma separated or repeated)', async () => {
    expect((await everyPage({ status: 'canceled' })).ids).toEqual(newestFirst(expected.filter((e) => e.status === 'canceled')));
    const several = newestFirst(expected.filter((e) => e.status === 'succeeded' || e.status === 'failed'));
    expect((await everyPage({ status: 'succeeded,failed', limit: '2' })).ids).toEqual(several);
    expect((await everyPage({ status: ['failed', 'succeeded'] })).ids).toEqual(several);
    expect(several.length).toBe(6);
  });

  it('filters by metadata in the flat Fastify shape and nested; every pair must match', async () => {
    const o1 = newestFirst(expected.filter((e) => e.order === 'o-1'));
    expect((await everyPage({ 'metadata[order]': 'o-1' })).ids).toEqual(o1);
    expect((await everyPage({ metadata: { order: 'o-1' } })).ids).toEqual(o1);
    const both = newestFirst(expected.filter((e) => e.order === 'o-1' && e.tier === 'gold'));
    expect((await everyPage({ 'metadata[order]': 'o-1', 'metadata[tier]': 'gold', limit: '1' })).ids).toEqual(both);
    expect(both.length).toBeGreaterThan(1);
    expect((await everyPage({ 'metadata[order]': 'o-9' })).ids).toEqual([]);
  });

  it('filters by customer and by reference', async () => {
    expect((await everyPage({ customer: 'cst_b', limit: '3' })).ids).toEqual(newestFirst(expected.filter((e) => e.customer === 'cst_b')));
    expect((await everyPage({ reference: 'ref-7' })).ids).toEqual(['pmt_l07']);
  });

  it('filters by a creation range (gte/gt/lte/lt, flat or nested)', async () => {
    const from = iso(2 * MIN);
    const to = iso(5 * MIN);
    const inRange = newestFirst(expected.filter((e) => e.createdAt >= from && e.createdAt < to));
    expect(inRange.length).toBe(9);
    expect((await everyPage({ 'created[gte]': from, 'created[lt]': to, limit: '5' })).ids).toEqual(inRange);
    expect((await everyPage({ created: { gte: from, lt: to } })).ids).toEqual(inRange);
    const open = newestFirst(expected.filter((e) => e.createdAt > from && e.createdAt <= to));
    expect((await everyPage({ 'created[gt]': from, 'created[lte]': to })).ids).toEqual(open);
  });

  it('combines filters, and their cursor works only with the same filters', async () => {
    const query = { status: 'pending', 'metadata[tier]': 'gold', limit: '2' };
    const want = newestFirst(expected.filter((e) => e.status === 'pending' && e.tier === 'gold'));
    expect((await everyPage(query)).ids).toEqual(want);
    const first = await read.listPayments(BIZ_A, query);
    expect(first.next_cursor).not.toBeNull();
    // the same filters in the nested shape are the same list
    expect((await read.listPayments(BIZ_A, { status: 'pending', metadata: { tier: 'gold' }, limit: '2', cursor: first.next_cursor })).data.map((p) => p.id)).toEqual(want.slice(2, 4));
    expect(await refusal({ ...query, 'metadata[tier]': 'basic', cursor: first.next_cursor })).toEqual({ code: 'invalid_request', field: 'cursor' });
    expect(await refusal({ limit: '2', cursor: first.next_cursor })).toEqual({ code: 'invalid_request', field: 'cursor' });
  });

  it("refuses another list's cursor and garbage", async () => {
    const foreign = encodeCursor('customers', {}, { created_at: iso(0), id: 'cst_a' });
    expect(await refusal({ cursor: foreign })).toEqual({ code: 'invalid_request', field: 'cursor' });
    expect(await refusal({ cursor: 'not a cursor' })).toEqual({ code: 'invalid_request', field: 'cursor' });
  });

  it('refuses bad filter values with invalid_request naming the parameter', async () => {
    expect(await refusal({ status: 'paid' })).toEqual({ code: 'invalid_request', field: 'status' });
    expect(await refusal({ status: 'pending,' })).toEqual({ code: 'invalid_request', field: 'status' });
    expect(await refusal({ 'created[gte]': 'yesterday' })).toEqual({ code: 'invalid_request', field: 'created[gte]' });
    expect(await refusal({ 'created[after]': iso(0) })).toEqual({ code: 'invalid_request', field: 'created[after]' });
    expect(await refusal({ created: '2025-01-01' })).toEqual({ code: 'invalid_request', field: 'created' });
    expect(await refusal({ customer: 'bob' })).toEqual({ code: 'invalid_request', field: 'customer' });
    expect(await refusal({ 'metadata[bad key]': 'x' })).toEqual({ code: 'invalid_request', field: 'metadata[bad key]' });
    expect(await refusal({ 'metadata[order]': ['a', 'b'] })).toEqual({ code: 'invalid_request', field: 'metadata[order]' });
    expect(await refusal({ limit: '0' })).toEqual({ code: 'invalid_request', field: 'limit' });
    expect(await refusal({ limit: '101' })).toEqual({ code: 'invalid_request', field: 'limit' });
    expect(await refusal({ sort: 'amount' })).toEqual({ code: 'invalid_request', field: 'sort' });
  });

  it('accepts a date alone as midnight UTC', async () => {
    expect((await read.listPayments(BIZ_A, { 'created[lt]': '2025-03-01' })).data).toEqual([]);
    expect((await read.listPayments(BIZ_A, { 'created[gte]': '2025-03-01', limit: '1' })).data).toHaveLength(1);
  });

  it("never lists another business's payments", async () => {
    const b = await everyPage({ 'metadata[order]': 'o-1', customer: 'cst_a' }, BIZ_B);
    expect(b.ids).toEqual(['pmt_b4', 'pmt_b3', 'pmt_b2', 'pmt_b1', 'pmt_b0']);
    expect((await everyPage({ reference: 'ref-1' })).ids).toEqual(['pmt_l01']);
    expect((await everyPage({}, 'biz_nobody')).ids).toEqual([]);
  });
});

describe('listPaymentsJson (the GET /payments body, joined from the stored views)', () => {
  const queries: Record<string, unknown>[] = [{}, { limit: '4' }, { status: 'succeeded,canceled', limit: '2' }, { 'metadata[tier]': 'gold', customer: 'cst_b' }, { 'created[gte]': iso(2 * MIN), limit: '5' }];

  /** Every page of a query as body texts, following next_cursor. */
  async function bodies(model: PaymentsReadModel, query: Record<string, unknown>): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | null = null;
    for (;;) {
      const text = await model.listPaymentsJson(BIZ_A, cursor ? { ...query, cursor } : query);
      out.push(text);
      cursor = (JSON.parse(text) as { next_cursor: string | null }).next_cursor;
      if (cursor === null) return out;
    }
  }

  it('is the JSON text of listPayments, byte for byte, page after page', async () => {
    for (const query of queries) {
      let cursor: string | null = null;
      do {
        const q: Record<string, unknown> = cursor ? { ...query, cursor } : query;
        const page = await read.listPayments(BIZ_A, q);
        expect(await read.listPaymentsJson(BIZ_A, q)).toBe(JSON.stringify(page));
        cursor = page.next_cursor;
      } while (cursor !== null);
    }
  });

  it('is JSON.stringify of the page of paymentView over the states in the table', async () => {
    const { rows } = await db.query<{ state: PaymentViewState }>(`SELECT state FROM payments WHERE business_id = $1 ORDER BY created_at DESC, id DESC LIMIT 4`, [BIZ_A]);
    const text = await read.listPaymentsJson(BIZ_A, { limit: '4' });
    const data = rows.map((r) => paymentView(r.state, { checkoutBaseUrl: CHECKOUT_BASE }));
    expect(text).toBe(JSON.stringify({ data, has_more: true, next_cursor: (JSON.parse(text) as { next_cursor: string }).next_cursor }));
  });

  it('gives the same text as rendering every row from its state (a read model with its own registry does)', async () => {
    const rendering = new PaymentsReadModel(db, { checkoutBaseUrl: CHECKOUT_BASE, registry: createRegistry() });
    for (const query of queries) expect(await bodies(rendering, query)).toEqual(await bodies(read, query));
  });

  it('shows the explorers of a registry given to the read model (the stored views have the default ones)', async () => {
    const registry = createRegistry({ explorers: { ethereum: { tx: 'https://explorer.example.test/tx/{hash}' } } });
    const overridden = new PaymentsReadModel(db, { checkoutBaseUrl: CHECKOUT_BASE, registry });
    const page = JSON.parse(await overridden.listPaymentsJson(BIZ_A, { status: 'succeeded', limit: '1' })) as { data: { id: string; method: { explorer_url: string } }[] };
    expect(page.data[0].method.explorer_url).toBe(`https://explorer.example.test/tx/${hash(100 + Number(page.data[0].id.slice(5)))}`);
  });
});
