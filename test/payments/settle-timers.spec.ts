import { CreatePaymentCommand, TIMER_KINDS } from '@lib/payments';
import { storePerSuite } from '../support/fixtures';
import { paymentsUseCases, simulatedOpenCheckout } from './support/use-cases';

/**
 * The timers an event sets are scheduled together, in one statement (TimerStore.scheduleMany), right
 * after the event is appended and before its reactions are decided: a simulated CheckoutOpened sets
 * its quote expiry and its simulated arrival with one INSERT.
 */
describe("settling an event schedules all of its timers in one statement", () => {
  const opened = storePerSuite('embedded');
  const business = { id: 'bus_settle_timers', simulated: true };

  it("a simulated checkout's quote expiry and simulated arrival, one INSERT", async () => {
    const app = paymentsUseCases(opened.store, opened.db);
    const { paymentId } = await app.createPayment.execute(new CreatePaymentCommand(business, { amount: 10_000, currency: 'USD' }));
    const checkoutId = 'chk_settletimers000000001';
    const now = new Date();
    const decided = await app.streams.decideCheckout(
      checkoutId,
      simulatedOpenCheckout(business.id, checkoutId, paymentId),
      { now, metadata: {} },
    );
    const inserts: string[] = [];
    const query = opened.db.query.bind(opened.db);
    const spy = jest.spyOn(opened.db, 'query').mockImplementation((text: string, params?: unknown[], name?: string) => {
      if (/^\s*INSERT INTO timers/.test(text)) inserts.push(text);
      return query(text, params, name);
    });
    try {
      await app.process.settle(decided.appended);
    } finally {
      spy.mockRestore();
    }
    expect(inserts).toHaveLength(1);
    const { rows } = await opened.db.query<{ kind: string; due_at: Date }>(`SELECT kind, due_at FROM timers WHERE subject = $1 ORDER BY due_at`, [checkoutId]);
    expect(rows.map((r) => r.kind)).toEqual([TIMER_KINDS.simulatedArrival, TIMER_KINDS.quoteExpiry]);
    expect(new Date(rows[1].due_at).getTime()).toBe(now.getTime() + 900_000);
  });
});
