import fc from 'fast-check';
import { CustomerRow, customerView, customersProjector } from '@lib/customers';
import type { RecordedEvent } from '@lib/eventstore';
import { storePerSuite } from '../support/fixtures';

/**
 * The `customers` projection's stats (decision 0029) against a recomputation from the payments'
 * events (property-based, fast-check): random payments of a few customers — two currencies,
 * random prices, methods on either rail, some succeeded — as the payment streams record them
 * (PaymentCreated, PaymentMethodSelected or PaymentCardMethodSelected, PaymentSucceeded), applied to the projector in random
 * batches; every customer's stats must equal what a plain fold of the same events says.
 */

interface PaymentPlan {
  customer: number;
  currency: 'USD' | 'EUR';
  amount: number;
  rails: ('crypto' | 'card')[];
  succeeds: boolean;
  /** Milliseconds after the start: several payments may share one. */
  at: number;
}

const CUSTOMERS = ['cst_propA', 'cst_propB', 'cst_propC'];
const START = Date.parse('2026-01-01T00:00:00.000Z');

const planArb: fc.Arbitrary<PaymentPlan> = fc.record({
  customer: fc.integer({ min: 0, max: CUSTOMERS.length - 1 }),
  currency: fc.constantFrom('USD' as const, 'EUR' as const),
  amount: fc.integer({ min: 100, max: 100_000_000 }),
  rails: fc.array(fc.constantFrom('crypto' as const, 'card' as const), { maxLength: 3 }),
  succeeds: fc.boolean(),
  at: fc.integer({ min: 0, max: 20 }),
});

/** The log: each payment's events in its own order, payments interleaved by a random schedule. */
function logOf(plans: PaymentPlan[], schedule: number[]): RecordedEvent[] {
  const streams = plans.map((plan, i) => {
    const paymentId = `pmt_p${String(i).padStart(3, '0')}`;
    const stream = `payment-${paymentId}`;
    const created = new Date(START + plan.at * 1000).toISOString();
    const events: { type: string; data: unknown; occurredAt: string }[] = [
      {
        type: 'PaymentCreated',
        data: { payment_id: paymentId, amount: plan.amount, currency: plan.currency, business_id: 'biz_prop', mode: 'test', customer_id: CUSTOMERS[plan.customer], customer_email: `${CUSTOMERS[plan.customer]}@prop.example` },
        occurredAt: created,
      },
      // a card method is recorded as the payment decider records it (PaymentCardMethodSelected)
      ...plan.rails.map((rail) => ({ type: rail === 'card' ? 'PaymentCardMethodSelected' : 'PaymentMethodSelected', data: { checkout_id: 'chk_x', rail }, occurredAt: created })),
    ];
    if (plan.succeeds && plan.rails.length > 0) events.push({ type: 'PaymentSucceeded', data: { amount_received: plan.amount }, occurredAt: created });
    return { stream, events };
  });
  const cursor = streams.map(() => 0);
  const log: RecordedEvent[] = [];
  let s = 0;
  while (log.length < streams.reduce((n, st) => n + st.events.length, 0)) {
    const live = streams.map((_, i) => i).filter((i) => cursor[i] < streams[i].events.length);
    const i = live[schedule[s++ % Math.max(schedule.length, 1)] % live.length] ?? live[0];
    const e = streams[i].events[cursor[i]];
    log.push({ id: `${streams[i].stream}-${cursor[i]}`, type: e.type, data: e.data, metadata: { occurredAt: e.occurredAt }, stream: streams[i].stream, revision: cursor[i], position: { commit: BigInt(log.length), prepare: BigInt(log.length) } as never, recordedAt: new Date(START) });
    cursor[i]++;
  }
  return log;
}

/** The stats of one customer, folded from the log by the rules of decision 0029. */
function expectedStats(log: RecordedEvent[], customerId: string) {
  const payments = new Map<string, { id: string; currency: string; amount: number; rail: string | null; succeeded: boolean; at: string }>();
  for (const event of log) {
    const d = event.data as Record<string, unknown>;
    if (event.type === 'PaymentCreated') {
      if (d.customer_id === customerId) payments.set(event.stream, { id: event.stream.slice('payment-'.length), currency: d.currency as string, amount: d.amount as number, rail: null, succeeded: false, at: event.metadata.occurredAt as string });
    } else if (payments.has(event.stream)) {
      const p = payments.get(event.stream)!;
      if (event.type === 'PaymentMethodSelected' || event.type === 'PaymentCardMethodSelected') p.rail = d.rail as string;
      if (event.type === 'PaymentSucceeded') p.succeeded = true;
    }
  }
  const all = [...payments.values()];
  if (all.length === 0) return null;
  const latest = (list: typeof all) => [...list].sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1))[0];
  const succeeded = all.filter((p) => p.succeeded);
  const currency = (succeeded.length > 0 ? latest(succeeded) : latest(all)).currency;
  const counted = succeeded.filter((p) => p.currency === currency);
  const volume = counted.reduce((sum, p) => sum + p.amount, 0);
  const rails = new Map<string, number>();
  for (const p of succeeded) if (p.rail) rails.set(p.rail, (rails.get(p.rail) ?? 0) + 1);
  const preferred = [...rails.entries()].sort(([ra, a], [rb, b]) => b - a || (ra < rb ? -1 : 1))[0]?.[0] ?? null;
  return {
    payments_count: all.length,
    incomplete_count: all.length - succeeded.length,
    volume: { amount: volume, currency },
    average: { amount: counted.length === 0 ? 0 : Math.floor(volume / counted.length), currency },
    last_payment_at: latest(all).at,
    preferred_rail: preferred,
  };
}

describe('customer stats (property-based: projection = recomputation from the payments’ events)', () => {
  const store = storePerSuite('postgres', 'custstats');
  beforeAll(() => store.db.exec(customersProjector.schema));

  it('holds for random payments, interleavings and batch splits', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(planArb, { minLength: 1, maxLength: 12 }), fc.array(fc.nat(), { maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 10 }), async (plans, schedule, batchSizes) => {
        await store.db.exec('DELETE FROM customer_payments; DELETE FROM customers;');
        const log = logOf(plans, schedule);
        for (let i = 0, b = 0; i < log.length; b++) {
          const size = batchSizes[b % batchSizes.length];
          const batch = log.slice(i, i + size);
          await store.db.transaction((tx) => customersProjector.handle(batch, tx));
          i += size;
        }
        const { rows } = await store.db.query<CustomerRow>('SELECT * FROM customers');
        const actual = Object.fromEntries(rows.map((r) => [r.id, customerView(r).stats]));
        const expected = Object.fromEntries(CUSTOMERS.map((id) => [id, expectedStats(log, id)]).filter(([, stats]) => stats !== null));
        expect(actual).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});
