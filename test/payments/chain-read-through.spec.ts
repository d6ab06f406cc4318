import { READ_THROUGH_WAIT_MAX_MS, nextLookBeforeEnd, openQuoteNetworks, timersForCheckoutEvent, timersForPaymentEvent } from '../../libs/payments/src/app';
import { CheckoutCommand, CheckoutEvent, decideCheckout, evolveCheckout, initialCheckoutState } from '../../libs/payments/src/domain';

/**
 * A live quote's end waits for its network's watcher (decision 0025, addendum of 2026-11-29,
 * lateness at mining): the quote and payment expiry timers of a live business name what they
 * wait for, and the pure rule says when to end or look again.
 */
describe('a live quote ends once its network has been read through its end', () => {
  const END = new Date('2026-11-29T12:00:00.000Z');
  const plus = (ms: number) => new Date(END.getTime() + ms);

  it('ends now when every network was read through the end, or when a network was never watched', () => {
    expect(nextLookBeforeEnd(END, plus(10), [{ caughtUpAt: END }])).toBeNull();
    expect(nextLookBeforeEnd(END, plus(10), [{ caughtUpAt: plus(5) }, { caughtUpAt: plus(1) }])).toBeNull();
    expect(nextLookBeforeEnd(END, plus(10), [null])).toBeNull();
    expect(nextLookBeforeEnd(END, plus(10), [])).toBeNull();
  });

  it('waits while one network is read only up to before the end (or never caught up): the next look soon, further apart as the wait grows', () => {
    expect(nextLookBeforeEnd(END, plus(10), [{ caughtUpAt: plus(5) }, { caughtUpAt: plus(-1) }])).toEqual(plus(10 + 1000));
    expect(nextLookBeforeEnd(END, plus(10), [{ caughtUpAt: null }])).toEqual(plus(10 + 1000));
    expect(nextLookBeforeEnd(END, plus(20_000), [{ caughtUpAt: plus(-1) }])).toEqual(plus(30_000));
    expect(nextLookBeforeEnd(END, plus(30 * 60_000), [{ caughtUpAt: plus(-1) }])).toEqual(plus(31 * 60_000));
  });

  it('ends anyway once it has waited READ_THROUGH_WAIT_MAX_MS (a watcher down that long: what it reads later is late)', () => {
    expect(nextLookBeforeEnd(END, plus(READ_THROUGH_WAIT_MAX_MS - 1), [{ caughtUpAt: plus(-1) }])).not.toBeNull();
    expect(nextLookBeforeEnd(END, plus(READ_THROUGH_WAIT_MAX_MS), [{ caughtUpAt: plus(-1) }])).toBeNull();
  });

  const openWith = (simulated: boolean): { events: CheckoutEvent[]; after: ReturnType<typeof evolveCheckout> } => {
    const command: CheckoutCommand = {
      type: 'OpenCheckout', checkoutId: 'chk_1', paymentId: 'pmt_1', linkId: null, rail: 'crypto', simulated,
      asset: 'USDC', network: 'polygon', address: '0x' + '11'.repeat(20), rateMinorPerCoin: 100, currency: 'USD',
      priceMinor: 10_000, feePayer: 'business', feeRateBps: 100, remainder: null, quoteTtlMs: 15 * 60_000,
      details: { business_id: 'biz_1', email: null, country: null, success_url: null, replaces: null, simulate: null },
    };
    const events = decideCheckout(command, initialCheckoutState, { now: END });
    return { events, after: events.reduce(evolveCheckout, initialCheckoutState) };
  };

  it("a live checkout's quote expiry timer names its network; a simulated one's names none (it never waits)", () => {
    const live = openWith(false);
    expect(timersForCheckoutEvent(live.events[0], live.after, END.toISOString())).toEqual([expect.objectContaining({ kind: 'checkout.quote_expiry', subject: 'chk_1', payload: { network: 'polygon' } })]);
    const simulated = openWith(true);
    const timers = timersForCheckoutEvent(simulated.events[0], simulated.after, END.toISOString());
    expect(timers.find((t) => t.kind === 'checkout.quote_expiry')).not.toHaveProperty('payload');
  });

  it("a live payment's expiry timer says it is live; a simulated one's does not", () => {
    const created = (mode: 'live' | 'test') =>
      timersForPaymentEvent({ type: 'PaymentCreated', data: { expires_at: END.toISOString() } } as never, { status: 'pending', id: 'pmt_1', details: { business_id: 'biz_1', mode } } as never);
    expect(created('live')).toEqual([expect.objectContaining({ kind: 'payment.expiry', payload: { live: true } })]);
    expect(created('test')[0]).not.toHaveProperty('payload');
  });

  it("a live payment's expiry waits for the networks of its crypto checkouts still open (a remainder's is its method's); not a card checkout's, not a closed one's", () => {
    const method = (network: string) => ({ method: { network }, quoteEndsAt: END.toISOString() });
    const payment = {
      status: 'pending',
      checkouts: { chk_a: { remainder: false, open: true }, chk_b: { remainder: false, open: false }, chk_c: { remainder: true, open: true }, chk_d: { remainder: false, open: true, card: true } },
      quotes: { chk_a: method('polygon'), chk_b: method('solana') },
      method: { network: 'ethereum' },
    };
    expect(openQuoteNetworks(payment as never).sort()).toEqual(['ethereum', 'polygon']);
    expect(openQuoteNetworks({ status: 'none' } as never)).toEqual([]);
  });
});
