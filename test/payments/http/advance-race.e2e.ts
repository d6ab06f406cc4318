import { CommandRunner, EVENT_STORE, EventStore, LogPosition, comparePositions } from '@lib/eventstore';
import { PAYMENT_STREAM, PaymentsWorker, TimerFiring } from '@lib/payments';
import { TimerStore } from '@lib/timers';
import { appPerSuite, businessWithKey, startApp } from '../../support/fixtures';

/**
 * POST /test_clock/advance fires the business's due timers and answers once the read models have
 * what they caused — also what a worker's poll caused, when it took some of those timers. A
 * worker can take a due timer (even one that came due during the advance: an arrival's
 * confirmations) and finish it between two of the advance's looks at the timers; the advance
 * then saw neither a claimable nor a held timer, and used to answer without waiting for that
 * worker's events (seen as a payment still `pending` right after an advance that paid it).
 */
describe('test clock advance while a worker fires the same timers', () => {
  const suite = appPerSuite(
    () => startApp('embedded'),
    async (api) => {
      await api.app.get(PaymentsWorker).onApplicationShutdown(); // this process's own timer poll off: the test plays the worker
      return { shop: (await businessWithKey(api, true)).client };
    },
  );

  it('waits for the events of timers a worker took and finished between its looks', async () => {
    const payment = await suite.shop.createPayment({ amount: 2_000 });
    const checkout = await suite.shop.openCheckout(payment);
    await suite.shop.markSent(checkout.id, 'exact');

    const timers = suite.api.app.get(TimerStore, { strict: false });
    const firing = suite.api.app.get(TimerFiring, { strict: false });
    const claimDue = timers.claimDue.bind(timers);
    let takenByWorker = 0;
    // the advance's first look finds the worker done already: it fired every due timer of the business, and the confirmations those scheduled
    timers.claimDue = async (limit, leaseMs, kinds, businessId, fired) => {
      if (businessId !== undefined && takenByWorker === 0) {
        for (let [timer] = await claimDue(1, leaseMs, kinds, businessId); timer; [timer] = await claimDue(1, leaseMs, kinds, businessId)) {
          await firing.fire(timer);
          await timers.markFired(timer.id);
          takenByWorker++;
        }
        return [];
      }
      return claimDue(limit, leaseMs, kinds, businessId, fired);
    };
    const runner = suite.api.app.get(CommandRunner);
    const waited: LogPosition[] = [];
    const waitFor = runner.waitFor.bind(runner);
    runner.waitFor = (position) => (position && waited.push(position), waitFor(position));
    try {
      await suite.shop.advance(15);
    } finally {
      timers.claimDue = claimDue;
      runner.waitFor = waitFor;
    }
    expect(takenByWorker).toBe(4); // the transfer's four confirmations
    const [last] = await suite.api.app.get<EventStore>(EVENT_STORE).readStream(PAYMENT_STREAM.stream(payment.id), { direction: 'backwards', maxCount: 1 });
    expect(waited.some((p) => comparePositions(p, last.position) >= 0)).toBe(true);
    expect((await suite.shop.payment(payment.id)).status).toBe('succeeded');
  });
});
