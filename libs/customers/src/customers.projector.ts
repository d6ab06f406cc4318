import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { eventTime } from '@lib/payments';
import { asCustomerEvent } from './events';
import { emailKey } from './identity';
import { CustomerPayment, customerPaymentChange } from './stats';

/**
 * The `customers` projection (decision 0029; deterministic: event data, metadata and recordedAt only):
 * - `customers`: every customer of every business as GET /customers shows it — recorded on its
 *   stream (POST /customers, or a change to a customer known from payments), or known only
 *   because a payment's PaymentCreated named it (`customer_id`, `customer_email`) — with its
 *   stats;
 * - `customer_payments`: each payment that names a customer, with what the stats count (its
 *   currency and price, the rail of its method, whether it succeeded).
 * After each batch the stats of the customers it touched are computed again from their
 * payments, in SQL: exact integers (test/customers/stats.property.spec.ts compares them with a
 * recomputation from the payments' events).
 *
 * Stats: `payments_count` every payment naming the customer; `incomplete_count` those not
 * succeeded; `volume` the sum of the prices of its succeeded payments in the stats currency and
 * `average` that sum divided by their number, rounded down (0 without any); the stats currency
 * is that of its latest succeeded payment, else of its latest payment (null without payments);
 * `last_payment_at` the creation time of its latest payment; `preferred_rail` the rail most of
 * its succeeded payments used (a tie goes to the rail first in alphabetical order), null when
 * none succeeded. "Latest" is by creation time, then payment id (ids and rails compare by code
 * point, COLLATE "C", as the customer events' tally does: stats.ts).
 */
export const customersProjector: Projector = {
  name: 'customers',
  tables: ['customer_payments', 'customers'],
  schema: `
    CREATE TABLE IF NOT EXISTS customers (
      id               text        PRIMARY KEY,
      business_id      text        NOT NULL,
      mode             text        NOT NULL,
      email            text        NOT NULL,
      email_key        text        NOT NULL,
      name             text,
      note             text        NOT NULL,
      blocked          boolean     NOT NULL,
      origin           text        NOT NULL,
      created_at       timestamptz NOT NULL,
      updated_at       timestamptz NOT NULL,
      payments_count   integer     NOT NULL DEFAULT 0,
      incomplete_count integer     NOT NULL DEFAULT 0,
      stats_currency   text,
      volume           bigint      NOT NULL DEFAULT 0,
      average          bigint      NOT NULL DEFAULT 0,
      last_payment_at  timestamptz,
      preferred_rail   text
    );
    CREATE INDEX IF NOT EXISTS customers_business_created ON customers (business_id, created_at DESC, id DESC);
    CREATE INDEX IF NOT EXISTS customers_business_email ON customers (business_id, email_key);
    CREATE TABLE IF NOT EXISTS customer_payments (
      payment_id  text        PRIMARY KEY,
      customer_id text        NOT NULL,
      business_id text        NOT NULL,
      currency    text        NOT NULL,
      amount      bigint      NOT NULL,
      rail        text,
      succeeded   boolean     NOT NULL,
      created_at  timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS customer_payments_customer ON customer_payments (customer_id);
  `,
  async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
    const known = new Map<string, object>();
    const payments = new Map<string, CustomerPayment>();
    const changes = new Map<string, { payment_id: string; rail: string | null; succeeded: boolean }>();
    const touched = new Set<string>();
    // in log order: the customers and payments gathered so far are written before a customer
    // event is applied, so that a batch gives the rows the same events give in smaller batches
    const flush = async () => {
      if (known.size > 0) {
        // a customer known from payments appears once: the first payment naming it (a recorded customer keeps its row)
        await tx.query(`INSERT INTO customers SELECT * FROM jsonb_populate_recordset(NULL::customers, $1::jsonb) ON CONFLICT (id) DO NOTHING`, [JSON.stringify([...known.values()])]);
      }
      if (payments.size > 0) {
        await tx.query(`INSERT INTO customer_payments SELECT * FROM jsonb_populate_recordset(NULL::customer_payments, $1::jsonb) ON CONFLICT (payment_id) DO NOTHING`, [JSON.stringify([...payments.values()])]);
      }
      known.clear();
      payments.clear();
    };
    for (const event of events) {
      if (asCustomerEvent(event) !== null) {
        await flush();
        await applyCustomerEvent(event, tx);
        continue;
      }
      // the payment events as the customer events' source takes them too (customerPaymentChange)
      const change = customerPaymentChange(event);
      if (change === null) continue;
      if (change.type === 'created') {
        const p = change.payment;
        if (!known.has(p.customer_id)) {
          known.set(p.customer_id, {
            id: p.customer_id,
            business_id: p.business_id,
            mode: change.mode,
            email: change.email,
            email_key: emailKey(change.email),
            name: null,
            note: '',
            blocked: false,
            origin: 'payment',
            created_at: p.created_at,
            updated_at: p.created_at,
            payments_count: 0,
            incomplete_count: 0,
            stats_currency: null,
            volume: 0,
            average: 0,
            last_payment_at: null,
            preferred_rail: null,
          });
        }
        if (!payments.has(p.payment_id)) payments.set(p.payment_id, p);
        touched.add(p.customer_id);
      } else {
        const update = changes.get(change.payment_id) ?? { payment_id: change.payment_id, rail: null, succeeded: false };
        if (change.type === 'method') update.rail = change.rail ?? update.rail;
        else update.succeeded = true;
        changes.set(change.payment_id, update);
      }
    }
    await flush();
    if (changes.size > 0) {
      const { rows } = await tx.query<{ customer_id: string }>(
        `UPDATE customer_payments cp SET rail = COALESCE(u.rail, cp.rail), succeeded = cp.succeeded OR u.succeeded
         FROM jsonb_to_recordset($1::jsonb) AS u(payment_id text, rail text, succeeded boolean)
         WHERE cp.payment_id = u.payment_id RETURNING cp.customer_id`,
        [JSON.stringify([...changes.values()])],
      );
      for (const row of rows) touched.add(row.customer_id);
    }
    if (touched.size > 0) await recomputeStats(tx, [...touched]);
  },
};

async function applyCustomerEvent(event: RecordedEvent, tx: Sql): Promise<void> {
  const customer = asCustomerEvent(event)!;
  const id = event.stream.slice('customer-'.length);
  const at = eventTime(event);
  switch (customer.type) {
    case 'CustomerCreated': {
      const d = customer.data;
      const created = d.created_at ?? at;
      // a customer known from payments keeps its row (its first payment's time, its stats); its fields are the event's
      await tx.query(
        `INSERT INTO customers (id, business_id, mode, email, email_key, name, note, blocked, origin, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, false, $8, $9, $9)
         ON CONFLICT (id) DO UPDATE SET email = EXCLUDED.email, email_key = EXCLUDED.email_key, name = EXCLUDED.name, note = EXCLUDED.note,
           origin = EXCLUDED.origin, created_at = LEAST(customers.created_at, EXCLUDED.created_at)`,
        [d.customer_id, d.business_id, d.mode, d.email, emailKey(d.email), d.name, d.note, d.origin, created],
      );
      return;
    }
    case 'CustomerUpdated': {
      const d = customer.data;
      await tx.query(`UPDATE customers SET email = $2, email_key = $3, name = $4, note = $5, updated_at = $6 WHERE id = $1`, [id, d.email, emailKey(d.email), d.name, d.note, at]);
      return;
    }
    case 'CustomerBlocked':
    case 'CustomerUnblocked':
      await tx.query(`UPDATE customers SET blocked = $2, updated_at = $3 WHERE id = $1`, [id, customer.type === 'CustomerBlocked', at]);
      return;
  }
}

/** The stats of these customers from their payments (see the projector's comment for the rules). */
async function recomputeStats(tx: Sql, customerIds: string[]): Promise<void> {
  await tx.query(
    `WITH p AS (
       SELECT * FROM customer_payments WHERE customer_id = ANY($1::text[])
     ), cur AS (
       SELECT DISTINCT ON (customer_id) customer_id, currency AS stats_currency FROM p ORDER BY customer_id, succeeded DESC, created_at DESC, payment_id COLLATE "C" DESC
     ), agg AS (
       SELECT p.customer_id, count(*)::int AS n, (count(*) FILTER (WHERE p.succeeded))::int AS ok, max(p.created_at) AS last_at,
              COALESCE(sum(p.amount) FILTER (WHERE p.succeeded AND p.currency = cur.stats_currency), 0)::bigint AS volume,
              (count(*) FILTER (WHERE p.succeeded AND p.currency = cur.stats_currency))::bigint AS counted,
              min(cur.stats_currency) AS stats_currency
       FROM p JOIN cur ON cur.customer_id = p.customer_id GROUP BY p.customer_id
     ), rail AS (
       SELECT DISTINCT ON (customer_id) customer_id, rail FROM (
         SELECT customer_id, rail, count(*) AS k FROM p WHERE succeeded AND rail IS NOT NULL GROUP BY customer_id, rail
       ) r ORDER BY customer_id, k DESC, rail COLLATE "C" ASC
     )
     UPDATE customers c SET payments_count = agg.n, incomplete_count = agg.n - agg.ok, stats_currency = agg.stats_currency, volume = agg.volume,
       average = CASE WHEN agg.counted = 0 THEN 0 ELSE agg.volume / agg.counted END, last_payment_at = agg.last_at, preferred_rail = rail.rail
     FROM agg LEFT JOIN rail ON rail.customer_id = agg.customer_id
     WHERE c.id = agg.customer_id`,
    [customerIds],
  );
}
