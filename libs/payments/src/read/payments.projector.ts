import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { BatchChanges, Projector } from '@lib/projections';
import type { CheckoutOpenedData } from '../domain/checkout.events';
import { CheckoutViewState, evolveCheckoutView } from './checkout-view';
import { CHECKOUT_STREAM, PAYMENT_STREAM } from '../domain/stream-categories';
import { PAYMENT_VIEW_VERSION, PaymentViewState, evolvePaymentView, storedPaymentView, transferCoin } from './payment-view';

/**
 * The `payments` projection: the read side of payment and checkout streams (PAYMENT_STREAM,
 * CHECKOUT_STREAM; every other stream, the reference streams included, is ignored). Tables:
 * - `payments`: one row per payment; the columns lists filter and sort on, `state` (jsonb), the
 *   whole `PaymentViewState` the API view is built from (timeline included), and `view` (text),
 *   that API object already rendered as JSON, url left null (`storedPaymentView`, of
 *   `view_version`), which the payment routes answer from without parsing (decision 0018);
 * - `checkouts`: one row per checkout, with `state` the `CheckoutViewState`;
 * - `payment_transfers`: every transfer a payment saw (hash, network, amount, sender), for
 *   receipts and for search by hash or sender; one row per checkout and transaction (one
 *   transaction may pay two checkouts of a payment, 0025 addendum, 2026-11-28, third).
 * A batch loads the rows it touches once, applies every event in memory with the pure reducers
 * (`evolvePaymentView`, `evolveCheckoutView`) and writes the changed rows back in one statement
 * per table, so projecting events in one batch or one by one gives the same rows.
 */

export const PAYMENTS_PROJECTION = 'payments';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS payments (
    id           text        PRIMARY KEY,
    business_id  text,
    mode         text,
    code         text        UNIQUE,
    status       text        NOT NULL,
    amount       bigint      NOT NULL,
    currency     text        NOT NULL,
    customer_id  text,
    reference    text,
    link_id      text,
    metadata     jsonb       NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    state        jsonb       NOT NULL,
    view         text,
    view_version integer
  );
  -- tables made before the stored view (decision 0018): the same columns, last as above; their
  -- rows keep null until a rebuild and are rendered from state meanwhile
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS view text;
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS view_version integer;
  CREATE INDEX IF NOT EXISTS payments_business_created ON payments (business_id, created_at DESC, id DESC);
  CREATE INDEX IF NOT EXISTS payments_business_status ON payments (business_id, status, created_at DESC, id DESC);
  CREATE INDEX IF NOT EXISTS payments_business_customer ON payments (business_id, customer_id, created_at DESC, id DESC) WHERE customer_id IS NOT NULL;
  CREATE INDEX IF NOT EXISTS payments_business_reference ON payments (business_id, reference) WHERE reference IS NOT NULL;
  CREATE INDEX IF NOT EXISTS payments_metadata ON payments USING gin (metadata jsonb_path_ops);

  CREATE TABLE IF NOT EXISTS checkouts (
    id           text        PRIMARY KEY,
    business_id  text,
    payment_id   text        NOT NULL,
    status       text        NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    state        jsonb       NOT NULL
  );
  CREATE INDEX IF NOT EXISTS checkouts_payment ON checkouts (payment_id, created_at);
  -- the checkouts still waiting for money, whose addresses' mempools a chain watcher looks at (0023 addendum, 2026-11-29)
  CREATE INDEX IF NOT EXISTS checkouts_awaiting ON checkouts (created_at) WHERE status IN ('open', 'awaiting_customer');

  CREATE TABLE IF NOT EXISTS payment_transfers (
    payment_id   text        NOT NULL,
    tx_hash      text        NOT NULL,
    business_id  text,
    checkout_id  text        NOT NULL,
    seq          integer     NOT NULL,
    network      text        NOT NULL,
    asset        text,
    amount       text        NOT NULL,
    review       text,
    from_address text,
    detected_at  timestamptz NOT NULL,
    PRIMARY KEY (payment_id, checkout_id, tx_hash)
  );
  -- tables made when a payment knew a transfer by its hash alone: the key gains the checkout
  -- (their rows stay unique under it); a no-op once it has
  DO $$
  DECLARE old_key text;
  BEGIN
    SELECT c.conname INTO old_key FROM pg_constraint c
     WHERE c.conrelid = 'payment_transfers'::regclass AND c.contype = 'p'
       AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey) AND a.attname = 'checkout_id');
    IF old_key IS NOT NULL THEN
      EXECUTE format('ALTER TABLE payment_transfers DROP CONSTRAINT %I', old_key);
      ALTER TABLE payment_transfers ADD PRIMARY KEY (payment_id, checkout_id, tx_hash);
    END IF;
  END $$;
  CREATE INDEX IF NOT EXISTS payment_transfers_hash ON payment_transfers (tx_hash);
  CREATE INDEX IF NOT EXISTS payment_transfers_sender ON payment_transfers (business_id, from_address) WHERE from_address IS NOT NULL;
`;

export const paymentsProjector: Projector = {
  name: PAYMENTS_PROJECTION,
  tables: ['payment_transfers', 'checkouts', 'payments'],
  schema: SCHEMA,
  handle: handlePaymentEvents,
};

/** The ids of the rows a batch touches. */
function touched(events: readonly RecordedEvent[]): { payments: Set<string>; checkouts: Set<string> } {
  const payments = new Set<string>();
  const checkouts = new Set<string>();
  for (const event of events) {
    const paymentId = PAYMENT_STREAM.parse(event.stream);
    if (paymentId !== null) {
      payments.add(paymentId);
      continue;
    }
    const checkoutId = CHECKOUT_STREAM.parse(event.stream);
    if (checkoutId === null) continue;
    checkouts.add(checkoutId);
    if (event.type === 'CheckoutOpened' || event.type === 'CardCheckoutOpened') {
      const d = event.data as Partial<CheckoutOpenedData>;
      if (typeof d.payment_id === 'string') payments.add(d.payment_id);
      if (typeof d.replaces === 'string') checkouts.add(d.replaces);
    }
  }
  return { payments, checkouts };
}

/**
 * The states of one table's rows in a batch: loaded once, evolved in memory by a pure reducer,
 * and which of them changed (the rows to write back).
 */
class BatchStates<State> {
  private readonly states = new Map<string, State | null>();
  private readonly changed = new Set<string>();

  constructor(
    private readonly table: 'payments' | 'checkouts',
    private readonly evolve: (state: State | null, event: RecordedEvent) => State | null,
  ) {}

  /** Loads the stored states of `ids` (an id without a row starts from null). */
  async load(tx: Sql, ids: ReadonlySet<string>): Promise<void> {
    if (ids.size === 0) return;
    const { rows } = await tx.query<{ id: string; state: State }>(`SELECT id, state FROM ${this.table} WHERE id = ANY($1::text[])`, [[...ids]]);
    for (const row of rows) this.states.set(row.id, row.state);
  }

  apply(id: string, event: RecordedEvent): void {
    const before = this.states.get(id) ?? null;
    const after = this.evolve(before, event);
    if (after !== before) {
      this.states.set(id, after);
      this.changed.add(id);
    }
  }

  /** The states that changed, by id. */
  changedStates(): State[] {
    return [...this.changed].sort().map((id) => this.states.get(id)).filter((s): s is State => s != null);
  }
}

/** Applies a batch; says which businesses' `payments` rows changed (a list's page cache drops just those). */
async function handlePaymentEvents(events: RecordedEvent[], tx: Sql): Promise<BatchChanges> {
  const ids = touched(events);
  if (ids.payments.size === 0 && ids.checkouts.size === 0) return { scopes: [] };

  const payments = new BatchStates<PaymentViewState>('payments', evolvePaymentView);
  const checkouts = new BatchStates<CheckoutViewState>('checkouts', evolveCheckoutView);
  await payments.load(tx, ids.payments);
  await checkouts.load(tx, ids.checkouts);
  const withdrawals = new Set<string>(); // payments a transfer was withdrawn from in this batch
  for (const event of events) {
    const paymentId = PAYMENT_STREAM.parse(event.stream);
    if (paymentId !== null) {
      payments.apply(paymentId, event);
      if (event.type === 'PaymentTransferWithdrawn') withdrawals.add(paymentId);
      continue;
    }
    const checkoutId = CHECKOUT_STREAM.parse(event.stream);
    if (checkoutId === null) continue;
    checkouts.apply(checkoutId, event);
    if (event.type === 'CheckoutOpened' || event.type === 'CardCheckoutOpened') {
      const d = event.data as Partial<CheckoutOpenedData>;
      if (typeof d.payment_id === 'string') payments.apply(d.payment_id, event);
      if (typeof d.replaces === 'string' && d.replaces !== checkoutId) checkouts.apply(d.replaces, event);
    }
  }

  const paymentRows = payments.changedStates();
  const checkoutRows = checkouts.changedStates();
  if (paymentRows.length > 0) {
    await tx.query(
      `INSERT INTO payments AS p SELECT * FROM jsonb_populate_recordset(NULL::payments, $1::jsonb)
       ON CONFLICT (id) DO UPDATE SET
         business_id = excluded.business_id, mode = excluded.mode, code = excluded.code, status = excluded.status,
         amount = excluded.amount, currency = excluded.currency, customer_id = excluded.customer_id,
         reference = excluded.reference, link_id = excluded.link_id, metadata = excluded.metadata,
         created_at = excluded.created_at, updated_at = excluded.updated_at, state = excluded.state,
         view = excluded.view, view_version = excluded.view_version`,
      [JSON.stringify(paymentRows.map(paymentRow))],
    );
    const transfers = paymentRows.flatMap(transferRows);
    if (transfers.length > 0) {
      await tx.query(
        `INSERT INTO payment_transfers AS t SELECT * FROM jsonb_populate_recordset(NULL::payment_transfers, $1::jsonb)
         ON CONFLICT (payment_id, checkout_id, tx_hash) DO UPDATE SET
           business_id = excluded.business_id, seq = excluded.seq, network = excluded.network,
           asset = excluded.asset, amount = excluded.amount, review = excluded.review, from_address = excluded.from_address,
           detected_at = excluded.detected_at`,
        [JSON.stringify(transfers)],
      );
    }
    // a reorganisation withdrew a transfer, perhaps detected in an earlier batch: its row goes
    // (only batches with a withdrawal pay for this statement; the wallet's funds read these rows)
    const withdrawnFrom = paymentRows.filter((p) => withdrawals.has(p.id));
    if (withdrawnFrom.length > 0) {
      await tx.query(
        `DELETE FROM payment_transfers t WHERE t.payment_id = ANY($1::text[])
           AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset($2::jsonb) AS kept(payment_id text, checkout_id text, tx_hash text)
                           WHERE kept.payment_id = t.payment_id AND kept.checkout_id = t.checkout_id AND kept.tx_hash = t.tx_hash)`,
        [withdrawnFrom.map((p) => p.id), JSON.stringify(withdrawnFrom.flatMap(transferRows))],
      );
    }
  }
  if (checkoutRows.length > 0) {
    await tx.query(
      `INSERT INTO checkouts AS c SELECT * FROM jsonb_populate_recordset(NULL::checkouts, $1::jsonb)
       ON CONFLICT (id) DO UPDATE SET
         business_id = excluded.business_id, payment_id = excluded.payment_id, status = excluded.status,
         created_at = excluded.created_at, updated_at = excluded.updated_at, state = excluded.state`,
      [JSON.stringify(checkoutRows.map(checkoutRow))],
    );
  }
  return { scopes: [...new Set(paymentRows.flatMap((r) => (r.business_id ? [r.business_id] : [])))] };
}

function paymentRow(s: PaymentViewState) {
  return {
    id: s.id,
    business_id: s.business_id,
    mode: s.mode,
    code: s.code,
    status: s.status,
    amount: s.amount,
    currency: s.currency,
    customer_id: s.customer_id,
    reference: s.reference,
    link_id: s.link_id,
    metadata: s.metadata,
    created_at: s.created_at,
    updated_at: s.updated_at,
    state: s,
    view: storedPaymentView(s),
    view_version: PAYMENT_VIEW_VERSION,
  };
}

function transferRows(s: PaymentViewState) {
  return s.transfers.map((t, seq) => ({
    payment_id: s.id,
    tx_hash: t.tx_hash,
    business_id: s.business_id,
    checkout_id: t.checkout_id,
    seq,
    network: t.network,
    asset: transferCoin(s, t), // the coin of the quote it paid
    amount: t.amount,
    review: t.review,
    from_address: t.from_address,
    detected_at: t.detected_at,
  }));
}

function checkoutRow(s: CheckoutViewState) {
  return { id: s.id, business_id: s.business_id, payment_id: s.payment_id, status: s.status, created_at: s.created_at, updated_at: s.updated_at, state: s };
}
