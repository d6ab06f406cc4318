import fc from 'fast-check';
import { CustomersReadModel, CustomerView, customersProjector } from '@lib/customers';
import type { RecordedEvent } from '@lib/eventstore';
import { customerEventSource } from '../../libs/webhooks/src';
import { eventsProjectionPerSuite, writtenEvents } from '../support/events-projection';

/**
 * The `customer.*` API events carry the customer as GET /customers/{id} returns it at that event,
 * stats included (spec §6: `data` is the object as its endpoint returns it; decision 0029).
 * Property-based (fast-check): random customers — recorded by POST /customers or known only from a
 * payment's e-mail — random payments naming them (two currencies, methods, some succeeded; some
 * sharing one millisecond) and random changes, blocks and unblocks, interleaved; the `customers`
 * projection is applied event by event and read after each one (what the endpoint answers at that
 * moment), the events projection in random batches (links and views across batch boundaries).
 * Every API event's `data` must equal the read model's customer right after its domain event.
 */

const BUSINESS = 'biz_cev';
const START = Date.parse('2026-03-01T00:00:00.000Z');
const CUSTOMERS = ['cst_evA', 'cst_evB', 'cst_evC'];

type Step =
  | { kind: 'record'; customer: number; at: number }
  | { kind: 'pay'; customer: number; currency: 'USD' | 'EUR'; amount: number; rails: ('crypto' | 'card')[]; succeeds: boolean; at: number }
  | { kind: 'change'; customer: number; name: string; at: number }
  | { kind: 'block' | 'unblock'; customer: number; at: number };

const customer = fc.integer({ min: 0, max: CUSTOMERS.length - 1 });
const at = fc.integer({ min: 0, max: 6 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('record' as const), customer, at }),
  fc.record({
    kind: fc.constant('pay' as const),
    customer,
    currency: fc.constantFrom('USD' as const, 'EUR' as const),
    amount: fc.integer({ min: 100, max: 10_000_000 }),
    rails: fc.array(fc.constantFrom('crypto' as const, 'card' as const), { maxLength: 2 }),
    succeeds: fc.boolean(),
    at,
  }),
  fc.record({ kind: fc.constant('change' as const), customer, name: fc.constantFrom('Ann', 'Bo'), at }),
  fc.record({ kind: fc.constantFrom('block' as const, 'unblock' as const), customer, at }),
);

/** The log of the steps, in their order: a payment's events one after another (ids with both cases, so their order is the code points'). */
function logOf(steps: Step[]): RecordedEvent[] {
  const log: RecordedEvent[] = [];
  const recorded = new Set<number>();
  const known = new Map<number, string>(); // customers known from payments: the first payment's time
  const revisions = new Map<string, number>();
  const push = (stream: string, type: string, data: unknown, when: number) => {
    const revision = revisions.get(stream) ?? 0;
    revisions.set(stream, revision + 1);
    const n = log.length;
    log.push({
      id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      type,
      data,
      metadata: { occurredAt: new Date(START + when * 1000).toISOString(), actor: { kind: 'api_key', id: 'key_x', name: null } },
      stream,
      revision,
      position: { commit: BigInt(n + 1), prepare: BigInt(n + 1) },
      recordedAt: new Date(START + when * 1000),
    });
  };
  steps.forEach((step, i) => {
    const id = CUSTOMERS[step.customer];
    const stream = `customer-${id}`;
    const email = `${id}@shop.example`;
    switch (step.kind) {
      case 'record':
        if (recorded.has(step.customer)) return;
        recorded.add(step.customer);
        // as the decider records them: a customer known from payments keeps its first payment's time
        push(stream, 'CustomerCreated', { customer_id: id, business_id: BUSINESS, mode: 'test', email, name: null, note: '', ...(known.has(step.customer) ? { origin: 'payment', created_at: known.get(step.customer) } : { origin: 'api' }) }, step.at);
        return;
      case 'pay': {
        if (!known.has(step.customer) && !recorded.has(step.customer)) known.set(step.customer, new Date(START + step.at * 1000).toISOString());
        const paymentId = `pmt_${i % 2 === 0 ? 'a' : 'B'}${i}`;
        const payment = `payment-${paymentId}`;
        push(payment, 'PaymentCreated', { payment_id: paymentId, amount: step.amount, currency: step.currency, business_id: BUSINESS, mode: 'test', customer_id: id, customer_email: email }, step.at);
        for (const rail of step.rails) push(payment, rail === 'card' ? 'PaymentCardMethodSelected' : 'PaymentMethodSelected', { checkout_id: 'chk_x', rail }, step.at);
        if (step.succeeds && step.rails.length > 0) push(payment, 'PaymentSucceeded', { amount_received: step.amount }, step.at);
        return;
      }
      case 'change':
      case 'block':
      case 'unblock':
        if (!recorded.has(step.customer)) return; // the deciders record a customer first; the test keeps to recorded ones
        if (step.kind === 'change') push(stream, 'CustomerUpdated', { email, name: step.name, note: '' }, step.at);
        else push(stream, step.kind === 'block' ? 'CustomerBlocked' : 'CustomerUnblocked', { customer_id: id }, step.at);
        return;
    }
  });
  return log;
}

describe('customer.* event data = the customer GET /customers/{id} returns at that event (property-based)', () => {
  const { store, events } = eventsProjectionPerSuite('custevents', customersProjector, [customerEventSource]);

  it('holds for random customers, payments, changes and batch splits', async () => {
    const customers = new CustomersReadModel(store.db);
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 14 }), fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 8 }), async (steps, batchSizes) => {
        await store.db.exec('DELETE FROM customer_payments; DELETE FROM customers; DELETE FROM events; DELETE FROM event_source_views; DELETE FROM event_source_links;');
        const log = logOf(steps);
        if (log.length === 0) return;
        // the endpoint's answer right after each domain event
        const answers = new Map<string, Map<string, CustomerView>>();
        for (const event of log) {
          await store.db.transaction((tx) => customersProjector.handle([event], tx));
          const now = await customers.getMany(BUSINESS, CUSTOMERS);
          answers.set(event.id, new Map(now.map((c) => [c.id, c])));
        }
        for (let i = 0, b = 0; i < log.length; b++) {
          const size = batchSizes[b % batchSizes.length];
          await store.db.transaction((tx) => events.handle(log.slice(i, i + size), tx));
          i += size;
        }
        const sent = await writtenEvents<CustomerView>(store.db);
        for (const { source, event } of sent) expect({ type: event.type, data: event.data }).toEqual({ type: event.type, data: answers.get(source)!.get(event.subject.id) });
        // one customer.created per customer the business has
        const created = sent.filter((s) => s.event.type === 'customer.created').map((s) => s.event.subject.id);
        expect(created.sort()).toEqual([...answers.get(log[log.length - 1].id)!.keys()].sort());
      }),
      { numRuns: 60 },
    );
  });
});
