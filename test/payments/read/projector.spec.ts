import { Database, Sql, connectPostgres } from '@lib/database';
import { OpenedStore, RecordedEvent } from '@lib/eventstore';
import { ProjectionRunner, rebuildProjection, verifyProjection } from '@lib/projections';
import {
  CheckoutViewState,
  PAYMENT_VIEW_VERSION,
  PaymentViewState,
  PaymentsReadModel,
  checkoutView,
  eventTime,
  foldCheckoutView,
  foldPaymentView,
  paymentView,
  paymentsProjector,
} from '../../../libs/payments/src/read';
import { STORE_KINDS, storePerSuite } from '../../support/fixtures';
import { TestDatabase, createTestDatabase } from '../../support/postgres';
import { BIZ_A, CHECKOUT_BASE, businessCreated, hash, oneTransactionTwoCheckouts, paidTwoQuotesInTwoCoins, recordedLog, scenarios, withdrawnThenPaid } from './fixtures';
import { committedHead, settledHead } from '../../support/log-head';

/**
 * The `payments` projector: deterministic (one batch, one event at a time and uneven batches
 * give the same rows; the rows equal a pure fold of the events), ignores other streams, and runs
 * through libs/projections' rebuild, verify and live runner against real event stores
 * (PostgreSQL and the embedded one), with times taken from the business clock.
 */

const world = scenarios();
const log = world.recorded();

/** Every row of the projector's tables, as JSON, in key order. */
async function rowsOf(sql: Sql): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, key] of [['payments', 'id'], ['checkouts', 'id'], ['payment_transfers', 'payment_id, tx_hash, checkout_id']]) {
    out[table] = (await sql.query<{ row: unknown }>(`SELECT to_jsonb(t) AS row FROM ${table} t ORDER BY ${key}`)).rows.map((r) => r.row);
  }
  return out;
}

/** Projects the events into a fresh schema, in batches of the given sizes (cycled), and returns its rows. */
async function projectInSchema(db: Database, schema: string, events: RecordedEvent[], sizes: number[]): Promise<Record<string, unknown[]>> {
  await db.exec(`CREATE SCHEMA ${schema}`);
  await db.transaction(async (tx) => {
    await tx.query(`SET LOCAL search_path TO ${schema}`);
    await tx.exec(paymentsProjector.schema);
  });
  let i = 0;
  let n = 0;
  while (i < events.length) {
    const size = sizes[n++ % sizes.length];
    const batch = events.slice(i, i + size);
    i += size;
    await db.transaction(async (tx) => {
      await tx.query(`SET LOCAL search_path TO ${schema}`);
      await paymentsProjector.handle(batch, tx);
    });
  }
  return db.transaction(async (tx) => {
    await tx.query(`SET LOCAL search_path TO ${schema}`);
    return rowsOf(tx);
  });
}

describe('payments projector on PostgreSQL', () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase('pay_proj');
    db = connectPostgres(database.url);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('gives the same rows for one batch, one event at a time, and uneven batches', async () => {
    const whole = await projectInSchema(db, 'whole', log, [log.length]);
    const single = await projectInSchema(db, 'single', log, [1]);
    const uneven = await projectInSchema(db, 'uneven', log, [3, 1, 7, 2, 13]);
    expect(whole.payments).toHaveLength(11);
    expect(whole.checkouts).toHaveLength(13);
    expect(whole.payment_transfers).toHaveLength(5); // a claim is not a transfer
    expect(single).toEqual(whole);
    expect(uneven).toEqual(whole);
  });

  it('labels each transfer with the coin of the quote it paid (a superseded quote in another coin; review, 2026-11-28)', async () => {
    const w = paidTwoQuotesInTwoCoins();
    const rows = await projectInSchema(db, 'coins', w.recorded(), [3]);
    expect((rows.payment_transfers as { checkout_id: string; asset: string; amount: string }[]).map((t) => [t.checkout_id, t.asset, t.amount]).sort()).toEqual([
      ['chk_1', 'USDC', '100'],
      ['chk_2', 'ETH', '0.033333333333333334'],
    ]);
  });

  it('one transaction paying two checkouts of a payment: a row for each checkout\'s output, in one batch or one event at a time (0025 addendum, 2026-11-28, third)', async () => {
    const events = oneTransactionTwoCheckouts().recorded();
    const whole = await projectInSchema(db, 'one_tx_whole', events, [events.length]);
    expect((whole.payment_transfers as { checkout_id: string; tx_hash: string; amount: string; review: string | null }[]).map((t) => [t.checkout_id, t.tx_hash, t.amount, t.review])).toEqual([
      ['chk_1', hash(7), '60', null],
      ['chk_2', hash(7), '40', 'superseded_quote'],
    ]);
    expect(await projectInSchema(db, 'one_tx_single', events, [1])).toEqual(whole);
  });

  it('a transfer withdrawn in a later batch than the one that detected it leaves no row (the wallet\'s funds read these rows)', async () => {
    const events = withdrawnThenPaid().recorded();
    const whole = await projectInSchema(db, 'withdrawn_whole', events, [events.length]);
    expect((whole.payment_transfers as { tx_hash: string }[]).map((t) => t.tx_hash)).toEqual([hash(9)]);
    expect(await projectInSchema(db, 'withdrawn_single', events, [1])).toEqual(whole);
  });

  it('stores exactly what the pure reducers fold from the same events', async () => {
    const rows = await projectInSchema(db, 'fold', log, [5]);
    for (const row of rows.payments as { id: string; state: PaymentViewState }[]) {
      const folded = foldPaymentView(log.filter((e) => e.stream === `payment-${row.id}` || (e.type === 'CheckoutOpened' && (e.data as { payment_id: string }).payment_id === row.id)));
      expect(row.state).toEqual(folded);
    }
    for (const row of rows.checkouts as { id: string; state: CheckoutViewState }[]) {
      const folded = foldCheckoutView(log.filter((e) => e.stream === `checkout-${row.id}` || (e.type === 'CheckoutOpened' && (e.data as { replaces?: string }).replaces === row.id)));
      expect(row.state).toEqual(folded);
      expect(() => checkoutView(row.state)).not.toThrow();
    }
  });

  it('ignores other streams and event types it does not know', async () => {
    const others: RecordedEvent[] = [
      businessCreated(BIZ_A, 'Acme', null, null, 1),
      { ...log[0], id: 'a0000000-0000-4000-8000-000000000001', stream: 'wallet-wal_1', type: 'PaymentCreated' },
    ];
    const rows = await projectInSchema(db, 'others', others, [others.length]);
    expect(rows).toEqual({ payments: [], checkouts: [], payment_transfers: [] });
    const withUnknown = [...log.slice(0, 1), { ...log[0], id: 'a0000000-0000-4000-8000-000000000002', type: 'PaymentSomethingNew', data: { x: 1 } }];
    const [row] = (await projectInSchema(db, 'unknown', withUnknown, [2])).payments as { state: PaymentViewState }[];
    expect(row.state).toEqual(foldPaymentView(log.slice(0, 1)));
  });

  it('takes times from metadata.occurredAt, else from recordedAt', () => {
    expect(eventTime({ metadata: { occurredAt: '2030-01-01T00:00:00Z' }, recordedAt: new Date('2025-01-01T00:00:00Z') })).toBe('2030-01-01T00:00:00.000Z');
    expect(eventTime({ metadata: {}, recordedAt: new Date('2025-01-01T00:00:00Z') })).toBe('2025-01-01T00:00:00.000Z');
    expect(eventTime({ metadata: { occurredAt: 'soon' }, recordedAt: '2025-01-01T00:00:00.000Z' })).toBe('2025-01-01T00:00:00.000Z');
    const noClock = recordedLog(world.h).map((e) => ({ ...e, metadata: {} }));
    const state = foldPaymentView(noClock.filter((e) => e.stream === 'payment-pmt_ok'))!;
    expect(state.created_at).toBe(noClock.find((e) => e.stream === 'payment-pmt_ok')!.recordedAt.toISOString());
  });
});

/** Appends the scenario log to a real store, stream by stream in log order, with the business clock in metadata. */
async function appendLog(opened: OpenedStore): Promise<void> {
  for (const e of log) {
    await opened.store.append(e.stream, [{ id: e.id, type: e.type, data: e.data, metadata: e.metadata }], 'any');
  }
}

describe.each(STORE_KINDS)('payments projection through the engine on %s', (kind) => {
  const opened = storePerSuite(kind, 'pay_store');

  // rebuilds read the whole log: wait until readers see all of it (another suite's open transaction can hide the newest events)
  beforeAll(async () => {
    await appendLog(opened);
    await settledHead(opened.store);
  }, 120_000);

  it('rebuilds from the log, answers queries, and verifies against a fresh replay', async () => {
    const { store, db } = opened;
    const rebuilt = await rebuildProjection(store, db, paymentsProjector, { batchSize: 9 });
    expect(rebuilt.events).toBe(log.length);
    const read = new PaymentsReadModel(db, { checkoutBaseUrl: CHECKOUT_BASE });
    // the store stamped today's wall time; the views show the business clock
    const expected = paymentView(foldPaymentView(log.filter((e) => e.stream === 'payment-pmt_under' || (e.type === 'CheckoutOpened' && (e.data as { payment_id: string }).payment_id === 'pmt_under')))!, { checkoutBaseUrl: CHECKOUT_BASE });
    expect(await read.getPayment(BIZ_A, 'pmt_under')).toEqual(expected);
    expect((await read.listPayments(BIZ_A, { 'metadata[order]': 'o-2', status: 'succeeded' })).data.map((p) => p.id)).toEqual(['pmt_under']);
    expect(await read.getCheckout('chk_under2', { secretFields: true, businessId: BIZ_A })).toMatchObject({ remainder: true, fee_rate_bps: 100 });
    // the sightings are folded into the stored state: a rebuild shows the transaction holding the quote
    expect(await read.getCheckout('chk_held', { secretFields: false, businessId: BIZ_A })).toMatchObject({ status: 'open', crypto: { pending_tx_hash: hash(10), tx_hash: null, received_amount: '0' } });

    expect((await verifyProjection(store, db, paymentsProjector)).differences).toEqual([]);
    await db.query(`UPDATE payments SET status = 'failed' WHERE id = 'pmt_ok'`);
    const broken = await verifyProjection(store, db, paymentsProjector);
    expect(broken.differences.map((d) => d.table)).toEqual(['payments']);
    await rebuildProjection(store, db, paymentsProjector);
    expect((await verifyProjection(store, db, paymentsProjector)).differences).toEqual([]);
  });

  it('upgrades a table made before the stored views: rows without one (or of another version) are rendered from state until a rebuild', async () => {
    const { store, db } = opened;
    const read = new PaymentsReadModel(db, { checkoutBaseUrl: CHECKOUT_BASE });
    const answers = async () => ({ list: await read.listPaymentsJson(BIZ_A, { limit: '3' }), all: await read.listPaymentsJson(BIZ_A, {}), one: JSON.stringify(await read.getPayment(BIZ_A, 'pmt_under')) });
    const before = await answers();
    // the table as older code made it, then the projector's schema as the runner applies it at start
    await db.exec(`ALTER TABLE payments DROP COLUMN view, DROP COLUMN view_version`);
    await db.exec(paymentsProjector.schema);
    expect((await db.query(`SELECT id FROM payments WHERE view IS NOT NULL OR view_version IS NOT NULL`)).rows).toEqual([]);
    expect(await answers()).toEqual(before);
    // verify names the rows a rebuild would change; the rebuild stores every view
    expect((await verifyProjection(store, db, paymentsProjector)).differences.map((d) => d.table)).toEqual(['payments']);
    await rebuildProjection(store, db, paymentsProjector);
    expect((await verifyProjection(store, db, paymentsProjector)).differences).toEqual([]);
    expect((await db.query(`SELECT id FROM payments WHERE view IS NULL OR view_version <> ${PAYMENT_VIEW_VERSION}`)).rows).toEqual([]);
    expect(await answers()).toEqual(before);
    // a view stored by another version of the rendering is not used
    await db.query(`UPDATE payments SET view = '{"stale":true}', view_version = ${PAYMENT_VIEW_VERSION - 1}`);
    expect(await answers()).toEqual(before);
    await rebuildProjection(store, db, paymentsProjector);
  });

  it('upgrades a payment_transfers table keyed by payment and hash alone: the key gains the checkout, the rows stay (0025 addendum, 2026-11-28, third)', async () => {
    const { db } = opened;
    const keyColumns = async () =>
      (
        await db.query<{ name: string }>(
          `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
            WHERE i.indrelid = 'payment_transfers'::regclass AND i.indisprimary ORDER BY a.attname`,
        )
      ).rows.map((r) => r.name);
    const before = await rowsOf(db);
    expect(await keyColumns()).toEqual(['checkout_id', 'payment_id', 'tx_hash']);
    // the table as older code made it, then the projector's schema as the runner applies it at start (twice: a no-op the second time)
    await db.exec(`ALTER TABLE payment_transfers DROP CONSTRAINT payment_transfers_pkey, ADD PRIMARY KEY (payment_id, tx_hash)`);
    expect(await keyColumns()).toEqual(['payment_id', 'tx_hash']);
    await db.exec(paymentsProjector.schema);
    await db.exec(paymentsProjector.schema);
    expect(await keyColumns()).toEqual(['checkout_id', 'payment_id', 'tx_hash']);
    expect(await rowsOf(db)).toEqual(before);
  });

  it('follows the live log with the runner from scratch (batches of 4) to the same rows', async () => {
    const { store, db } = opened;
    const before = await rowsOf(db);
    await db.exec(`DROP TABLE payment_transfers, checkouts, payments; DELETE FROM projection_checkpoints WHERE name = 'payments'`);
    const runner = new ProjectionRunner(store, db, [paymentsProjector], { batchSize: 4 });
    await runner.start();
    try {
      expect(await runner.waitFor((await committedHead(store))!, 30_000)).toBe(true);
    } finally {
      await runner.stop();
    }
    expect(await rowsOf(db)).toEqual(before);
    expect((await verifyProjection(store, db, paymentsProjector)).differences).toEqual([]);
  });
});
