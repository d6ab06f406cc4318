import { CommandRunner, EVENT_STORE, EventStore, LogPosition, comparePositions } from '@lib/eventstore';
import { PAYMENT_STREAM, PaymentStreams, PaymentsWorker, TimerFiring } from '@lib/payments';
import { TimerStore } from '@lib/timers';
import { DATABASE } from '@lib/core';
import { Database } from '@lib/database';
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
    const claimAndListDue = timers.claimAndListDue.bind(timers);
    let takenByWorker = 0;
    // the advance's first look finds the worker done already: it fired every due timer of the business, and the confirmations those scheduled
    timers.claimAndListDue = async (businessId, options) => {
      if (takenByWorker === 0) {
        for (let [timer] = await timers.claimDue(1, options.leaseMs, options.kinds, businessId); timer; [timer] = await timers.claimDue(1, options.leaseMs, options.kinds, businessId)) {
          await firing.fire(timer);
          await timers.markFired(timer.id);
          takenByWorker++;
        }
      }
      return claimAndListDue(businessId, options);
    };
    const runner = suite.api.app.get(CommandRunner);
    const waited: LogPosition[] = [];
    const waitFor = runner.waitFor.bind(runner);
    runner.waitFor = (position) => (position && waited.push(position), waitFor(position));
    try {
      await suite.shop.advance(15);
    } finally {
      timers.claimAndListDue = claimAndListDue;
      runner.waitFor = waitFor;
    }
    expect(takenByWorker).toBe(4); // the transfer's four confirmations
    const [last] = await suite.api.app.get<EventStore>(EVENT_STORE).readStream(PAYMENT_STREAM.stream(payment.id), { direction: 'backwards', maxCount: 1 });
    expect(waited.some((p) => comparePositions(p, last.position) >= 0)).toBe(true);
    expect((await suite.shop.payment(payment.id)).status).toBe('succeeded');
  });

  it("fires a transfer's four confirmations with two looks at the timers: each confirmation sets the next leased to the advance, fired without a claim", async () => {
    const shop = (await businessWithKey(suite.api, true)).client; // its own clock: no timer of the test before comes due
    const payment = await shop.createPayment({ amount: 2_000 });
    const checkout = await shop.openCheckout(payment);
    await shop.markSent(checkout.id, 'exact');

    const timers = suite.api.app.get(TimerStore, { strict: false });
    const streams = suite.api.app.get(PaymentStreams, { strict: false });
    const calls = { looks: 0, claims: 0, dueLists: 0, streamReads: 0 };
    const loadCheckout = streams.loadCheckout.bind(streams);
    const head = streams.head.bind(streams);
    streams.loadCheckout = (...args) => (calls.streamReads++, loadCheckout(...args));
    streams.head = (...args) => (calls.streamReads++, head(...args));
    const claimAndListDue = timers.claimAndListDue.bind(timers);
    const claimDue = timers.claimDue.bind(timers);
    const dueTimers = timers.dueTimers.bind(timers);
    timers.claimAndListDue = (...args) => (calls.looks++, claimAndListDue(...args));
    timers.claimDue = (...args) => (calls.claims++, claimDue(...args));
    timers.dueTimers = (...args) => (calls.dueLists++, dueTimers(...args));
    let answer: Awaited<ReturnType<typeof shop.advance>>;
    try {
      answer = await shop.advance(15);
    } finally {
      Object.assign(timers, { claimAndListDue, claimDue, dueTimers });
      Object.assign(streams, { loadCheckout, head });
    }
    expect(answer).toMatchObject({ timers_fired: 4, advanced_seconds: 15 });
    // one look claims the first, the last marks the fourth fired and finds nothing more; nobody else fired a timer of the checkout, so its last events are known without a read
    expect(calls).toEqual({ looks: 2, claims: 0, dueLists: 0, streamReads: 0 });
    expect((await shop.payment(payment.id)).status).toBe('succeeded');
    const { rows } = await suite.api.app.get<Database>(DATABASE).query<{ status: string; n: string }>(`SELECT status, count(*)::text AS n FROM timers WHERE subject = $1 AND kind = 'checkout.confirmation' GROUP BY status`, [checkout.id]);
    expect(rows).toEqual([{ status: 'fired', n: '4' }]);
  });

  it('a firing that fails amid a look: what fired before is marked fired, the timers held and not fired are given back, the failing one waits for its retry', async () => {
    const shop = (await businessWithKey(suite.api, true)).client;
    const [a, b] = [await shop.createPayment({ amount: 2_000 }), await shop.createPayment({ amount: 3_000 })];
    const checkoutA = await shop.openCheckout(a);
    await shop.markSent(checkoutA.id, 'exact');
    const checkoutB = await shop.openCheckout(b);
    await shop.markSent(checkoutB.id, 'exact');

    const firing = suite.api.app.get(TimerFiring, { strict: false });
    const fire = firing.fire.bind(firing);
    // A's first confirmation fires and sets A's second (leased to the advance); B's first, claimed in the same look, fails
    firing.fire = async (timer, lease) => {
      if (timer.subject === checkoutB.id) throw new Error('boom');
      return fire(timer, lease);
    };
    let status: number;
    try {
      status = (await shop.post('/test_clock/advance', { seconds: 7 })).status; // A's second (3 s after its first) comes due too
    } finally {
      firing.fire = fire;
    }
    expect(status).toBe(500);
    const { rows } = await suite.api.app.get<Database>(DATABASE).query<{ subject: string; n: string; status: string; locked: boolean; last_error: string | null }>(
      `SELECT subject, payload->>'current' AS n, status, locked_until IS NOT NULL AS locked, last_error FROM timers WHERE subject = ANY($1) AND kind = 'checkout.confirmation' ORDER BY subject = $2 DESC, n`,
      [[checkoutA.id, checkoutB.id], checkoutA.id],
    );
    expect(rows).toEqual([
      { subject: checkoutA.id, n: '1', status: 'fired', locked: false, last_error: null },
      { subject: checkoutA.id, n: '2', status: 'scheduled', locked: false, last_error: null }, // given back: a worker's poll takes it at once
      { subject: checkoutB.id, n: '1', status: 'scheduled', locked: true, last_error: 'Error: boom' },
    ]);
  });

  it("POST /checkouts quotes at the business's clock as moved, read with the business (no read of its offset of its own)", async () => {
    const shop = (await businessWithKey(suite.api, true)).client;
    const payment = await shop.createPayment({ amount: 2_000 });
    const moved = await shop.advance(3600);
    const timers = suite.api.app.get(TimerStore, { strict: false });
    const now = timers.clock.now.bind(timers.clock);
    let offsetReads = 0;
    timers.clock.now = (businessId) => (businessId !== undefined && offsetReads++, now(businessId));
    let checkout: Awaited<ReturnType<typeof shop.openCheckout>>;
    try {
      checkout = await shop.openCheckout(payment);
    } finally {
      timers.clock.now = now;
    }
    expect(offsetReads).toBe(0);
    // the quote runs from the business's now, an hour ahead of the wall: its end is past the moved clock, not near the wall time
    expect(Date.parse(checkout.expires_at)).toBeGreaterThan(Date.parse(moved.now));
  });
});
