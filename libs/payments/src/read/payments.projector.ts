import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import type { CheckoutOpenedData } from '../domain/checkout.events';
import { CheckoutViewState, evolveCheckoutView } from './checkout-view';
import { CHECKOUT_STREAM, PAYMENT_STREAM } from '../domain/stream-categories';
import { PaymentViewState, evolvePaymentView } from './payment-view';

/**
 * The `payments` projection: the read side of payment and checkout streams (PAYMENT_STREAM,
 * CHECKOUT_STREAM; every other stream, the reference streams included, is ignored). Tables:
 * - `payments`: one row per payment; the columns lists filter and sort on, and `state` (jsonb),
 *   the whole `PaymentViewState` the API view is built from (timeline included);
 * - `checkouts`: one row per checkout, with `state` the `CheckoutViewState`;
 * - `payment_transfers`: every transfer a payment saw (hash, network, amount, sender), for
 *   receipts and for search by hash or sender.
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
    state        jsonb       NOT NULL
  );
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
    PRIMARY KEY (payment_id, tx_hash)
  );
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
    if (event.type === 'CheckoutOpened') {
      const d = event.data as Partial<CheckoutOpenedData>;
      if (typeof d.payment_id === 'string') payments.add(d.payment_id);
      if (typeof d.replaces === 'string') checkouts.add(d.replaces);
    }
  }
  return { payments, checkouts };
}

async function handlePaymentEvents(events: RecordedEvent[], tx: Sql): Promise<void> {
  const ids = touched(events);
  if (ids.payments.size === 0 && ids.checkouts.size === 0) return;

  const payments = new Map<string, PaymentViewState | null>();
  const checkouts = new Map<string, CheckoutViewState | null>();
  if (ids.payments.size > 0) {
    const { rows } = await tx.query<{ id: string; state: PaymentViewState }>(`SELECT id, state FROM payments WHERE id = ANY($1::text[])`, [[...ids.payments]]);
    for (const row of rows) payments.set(row.id, row.state);
  }
  if (ids.checkouts.size > 0) {
    const { rows } = await tx.query<{ id: string; state: CheckoutViewState }>(`SELECT id, state FROM checkouts WHERE id = ANY($1::text[])`, [[...ids.checkouts]]);
    for (const row of rows) checkouts.set(row.id, row.state);
  }

  const changedPayments = new Set<string>();
  const changedCheckouts = new Set<string>();
  const onPayment = (id: string, event: RecordedEvent) => {
    const before = payments.get(id) ?? null;
    const after = evolvePaymentView(before, event);
    if (after !== before) {
      payments.set(id, after);
      changedPayments.add(id);
    }
  };
  const onCheckout = (id: string, event: RecordedEvent) => {
    const before = checkouts.get(id) ?? null;
    const after = evolveCheckoutView(before, event);
    if (after !== before) {
      checkouts.set(id, after);
      changedCheckouts.add(id);
    }
  };
  for (const event of events) {
    const paymentId = PAYMENT_STREAM.parse(event.stream);
    if (paymentId !== null) {
      onPayment(paymentId, event);
      continue;
    }
    const checkoutId = CHECKOUT_STREAM.parse(event.stream);
    if (checkoutId === null) continue;
    onCheckout(checkoutId, event);
    if (event.type === 'CheckoutOpened') {
      const d = event.data as Partial<CheckoutOpenedData>;
      if (typeof d.payment_id === 'string') onPayment(d.payment_id, event);
      if (typeof d.replaces === 'string' && d.replaces !== checkoutId) onCheckout(d.replaces, event);
    }
  }

  const paymentRows = [...changedPayments].sort().map((id) => payments.get(id)).filter((s): s is PaymentViewState => s != null);
  const checkoutRows = [...changedCheckouts].sort().map((id) => checkouts.get(id)).filter((s): s is CheckoutViewState => s != null);
  if (paymentRows.length > 0) {
    await tx.query(
      `INSERT INTO payments AS p SELECT * FROM jsonb_populate_recordset(NULL::payments, $1::jsonb)
       ON CONFLICT (id) DO UPDATE SET
         business_id = excluded.business_id, mode = excluded.mode, code = excluded.code, status = excluded.status,
         amount = excluded.amount, currency = excluded.currency, customer_id = excluded.customer_id,
         reference = excluded.reference, link_id = excluded.link_id, metadata = excluded.metadata,
         created_at = excluded.created_at, updated_at = excluded.updated_at, state = excluded.state`,
      [JSON.stringify(paymentRows.map(paymentRow))],
    );
    const transfers = paymentRows.flatMap(transferRows);
    if (transfers.length > 0) {
      await tx.query(
        `INSERT INTO payment_transfers AS t SELECT * FROM jsonb_populate_recordset(NULL::payment_transfers, $1::jsonb)
         ON CONFLICT (payment_id, tx_hash) DO UPDATE SET
           business_id = excluded.business_id, checkout_id = excluded.checkout_id, seq = excluded.seq, network = excluded.network,
           asset = excluded.asset, amount = excluded.amount, review = excluded.review, from_address = excluded.from_address,
           detected_at = excluded.detected_at`,
        [JSON.stringify(transfers)],
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
    asset: s.method?.asset ?? null,
    amount: t.amount,
    review: t.review,
    from_address: t.from_address,
    detected_at: t.detected_at,
  }));
}

function checkoutRow(s: CheckoutViewState) {
  return { id: s.id, business_id: s.business_id, payment_id: s.payment_id, status: s.status, created_at: s.created_at, updated_at: s.updated_at, state: s };
}
