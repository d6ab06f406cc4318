import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { PAYMENT_STREAM, eventTime } from '@lib/payments';
import { asCustomerEvent } from './events';
import { emailKey } from './identity';
import { isCustomerId } from './stream-categories';

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
 * none succeeded. "Latest" is by creation time, then payment id.
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
    const payments = new Map<string, object>();
    const changes = new Map<string, { payment_id: string; rail: string | null; succeeded: boolean }>();
    const customerEvents: RecordedEvent[] = [];
    const touched = new Set<string>();
    for (const event of events) {
      if (asCustomerEvent(event) !== null) {
        customerEvents.push(event);
        continue;
      }
      const paymentId = PAYMENT_STREAM.parse(event.stream);
      if (paymentId === null) continue;
      if (event.type === 'PaymentCreated') {
        const d = event.data as { amount: number; currency: string; business_id?: string; mode?: string; customer_id?: string | null; customer_email?: string | null };
        if (!d.customer_id || !d.customer_email || !d.business_id || !isCustomerId(d.customer_id)) continue;
        const at = eventTime(event);
        if (!known.has(d.customer_id)) {
          known.set(d.customer_id, {
            id: d.customer_id,
            business_id: d.business_id,
            mode: d.mode === 'live' ? 'live' : 'test',
            email: d.customer_email,
            email_key: emailKey(d.customer_email),
            name: null,
            note: '',
            blocked: false,
            origin: 'payment',
            created_at: at,
            updated_at: at,
            payments_count: 0,
            incomplete_count: 0,
            stats_currency: null,
            volume: 0,
            average: 0,
            last_payment_at: null,
            preferred_rail: null,
          });
        }
        payments.set(paymentId, { payment_id: paymentId, customer_id: d.customer_id, business_id: d.business_id, currency: d.currency, amount: d.amount, rail: null, succeeded: false, created_at: at });
        touched.add(d.customer_id);
      } else if (event.type === 'PaymentMethodSelected' || event.type === 'PaymentSucceeded') {
        const change = changes.get(paymentId) ?? { payment_id: paymentId, rail: null, succeeded: false };
        if (event.type === 'PaymentMethodSelected') change.rail = (event.data as { rail: string }).rail;
        else change.succeeded = true;
        changes.set(paymentId, change);
      }
    }
    if (known.size > 0) {
      // a customer known from payments appears once: the first payment naming it (a recorded customer keeps its row)
      await tx.query(`INSERT INTO customers SELECT * FROM jsonb_populate_recordset(NULL::customers, $1::jsonb) ON CONFLICT (id) DO NOTHING`, [JSON.stringify([...known.values()])]);
    }
    if (payments.size > 0) {
      await tx.query(`INSERT INTO customer_payments SELECT * FROM jsonb_populate_recordset(NULL::customer_payments, $1::jsonb) ON CONFLICT (payment_id) DO NOTHING`, [JSON.stringify([...payments.values()])]);
    }
    for (const event of customerEvents) await applyCustomerEvent(event, tx);
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
       SELECT DISTINCT ON (customer_id) customer_id, currency AS stats_currency FROM p ORDER BY customer_id, succeeded DESC, created_at DESC, payment_id DESC
     ), agg AS (
       SELECT p.customer_id, count(*)::int AS n, (count(*) FILTER (WHERE p.succeeded))::int AS ok, max(p.created_at) AS last_at,
              COALESCE(sum(p.amount) FILTER (WHERE p.succeeded AND p.currency = cur.stats_currency), 0)::bigint AS volume,
              (count(*) FILTER (WHERE p.succeeded AND p.currency = cur.stats_currency))::bigint AS counted,
              min(cur.stats_currency) AS stats_currency
       FROM p JOIN cur ON cur.customer_id = p.customer_id GROUP BY p.customer_id
     ), rail AS (
       SELECT DISTINCT ON (customer_id) customer_id, rail FROM (
         SELECT customer_id, rail, count(*) AS k FROM p WHERE succeeded AND rail IS NOT NULL GROUP BY customer_id, rail
       ) r ORDER BY customer_id, k DESC, rail ASC
     )
     UPDATE customers c SET payments_count = agg.n, incomplete_count = agg.n - agg.ok, stats_currency = agg.stats_currency, volume = agg.volume,
       average = CASE WHEN agg.counted = 0 THEN 0 ELSE agg.volume / agg.counted END, last_payment_at = agg.last_at, preferred_rail = rail.rail
     FROM agg LEFT JOIN rail ON rail.customer_id = agg.customer_id
     WHERE c.id = agg.customer_id`,
    [customerIds],
  );
}
