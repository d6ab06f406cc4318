import { comparePositions } from '@lib/eventstore';
import { CreatePaymentCommand, PAYMENT_STREAM } from '@lib/payments';
import { storePerSuite } from '../support/fixtures';
import { paymentsUseCases, simulatedOpenCheckout } from './support/use-cases';
import { committedHead } from '../support/log-head';

/**
 * Two settlers of one event (a request settling inline and the worker's backstop, or a timer
 * fired twice): whichever appends a reaction first, the other must still see the whole chain of
 * consequences, so a request that promises read-your-writes waits for the position of the last
 * one. Before the fix, the settler that lost the race found "nothing new" and answered with no
 * position at all: `POST /test_clock/advance` then returned before the payment had moved (seen
 * as `underpaid` right after an advance that paid its remainder).
 */
describe('settling an event that another settler already settled', () => {
  const opened = storePerSuite('embedded');
  const business = { id: 'bus_settle', simulated: true };

  // each call is another process: its own process manager (and so its own "settled here" memory)
  const app = () => paymentsUseCases(opened.store, opened.db);


  it('the second settler answers with the same appended chain and the same last position as the first', async () => {
    const first = app();
    const { paymentId } = await first.createPayment.execute(new CreatePaymentCommand(business, { amount: 10_000, currency: 'USD' }));
    const checkoutId = 'chk_settlerace000000000001';
    const openedCheckout = await first.streams.decideCheckout(
      checkoutId,
      simulatedOpenCheckout(business.id, checkoutId, paymentId),
      { now: new Date(), metadata: {} },
    );

    const byFirst = await first.process.settle(openedCheckout.appended);
    expect(byFirst.position).not.toBeNull(); // the payment recorded the method (SelectMethod's event)
    const paymentHead = (await opened.store.readStream(PAYMENT_STREAM.stream(paymentId), { direction: 'backwards', maxCount: 1 }))[0];
    expect(paymentHead.type).toBe('PaymentMethodSelected');

    // another process (the backstop) settles the same event: it appends nothing new …
    const second = app();
    const before = await committedHead(opened.store);
    const bySecond = await second.process.settle(openedCheckout.appended);
    expect(await committedHead(opened.store)).toEqual(before);
    // … and still knows where the consequences are, so it can wait for the read models to have them
    expect(bySecond.position).not.toBeNull();
    expect(comparePositions(bySecond.position!, byFirst.position!)).toBe(0);
    expect(comparePositions(bySecond.position!, paymentHead.position)).toBe(0);
  });

  it('a reaction decided again with the same ids returns the events already appended, with their states', async () => {
    const streams = app().streams;
    const { paymentId } = await app().createPayment.execute(new CreatePaymentCommand(business, { amount: 2_500, currency: 'USD' }));
    const options = { now: new Date(), metadata: {}, eventId: (i: number) => `6f1c2d3e-0000-5000-8000-00000000000${i}` };
    const once = await streams.decidePayment(paymentId, { type: 'CancelPayment' }, options);
    expect(once.appended.map((e) => e.event.type)).toEqual(['PaymentCanceled']);
    const again = await streams.decidePayment(paymentId, { type: 'CancelPayment' }, options);
    expect(again.appended.map((e) => [e.eventId, e.event.type, e.before.status, e.after.status])).toEqual(
      once.appended.map((e) => [e.eventId, e.event.type, e.before.status, e.after.status]),
    );
    expect(comparePositions(again.position!, once.position!)).toBe(0);
    // a command that changes nothing, with ids never appended, still answers "nothing new"
    const other = await streams.decidePayment(paymentId, { type: 'CancelPayment' }, { ...options, eventId: (i: number) => `6f1c2d3e-0000-5000-8000-00000000001${i}` });
    expect(other).toMatchObject({ appended: [], position: null });
  });
});
