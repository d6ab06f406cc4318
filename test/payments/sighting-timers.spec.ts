import { TIMER_KINDS, timersForCheckoutEvent, timersForPaymentEvent } from '../../libs/payments/src/app/payment-timers';
import { CheckoutEvent, OpenCryptoCheckout, PaymentEvent, decideCheckout, evolveCheckout, evolvePayment, initialCheckoutState, initialPaymentState } from '../../libs/payments/src/domain';
import { T0, at } from './given-when-then';

/**
 * The timers of a transaction seen in the mempool (decision 0023, addendum 2026-11-29): the quote
 * timer and the payment's expiry timer fire again when the hold can end — a day after the
 * sighting at the latest, and (payment) at once when the sighting is dropped.
 */
describe('timers of a mempool sighting', () => {
  const open: OpenCryptoCheckout = {
    type: 'OpenCheckout', checkoutId: 'chk_1', paymentId: 'pmt_1', linkId: null, rail: 'crypto', simulated: false,
    asset: 'BTC', network: 'bitcoin', address: 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn', rateMinorPerCoin: 6_000_000, currency: 'USD',
    priceMinor: 3000, feePayer: 'business', feeRateBps: 0, remainder: null, quoteTtlMs: 15 * 60_000,
    details: { business_id: 'biz_1', email: null, country: null, success_url: null, replaces: null, simulate: null },
  };
  const TX = 'ab'.repeat(32);

  it('CheckoutTransferSighted → a quote expiry timer a day after the sighting; CheckoutSightingDropped → none (the drop ends the quote itself)', () => {
    const opened = decideCheckout(open, initialCheckoutState, { now: T0 });
    const state = opened.reduce(evolveCheckout, initialCheckoutState);
    const sighted = decideCheckout({ type: 'SightTransfer', txHash: TX, network: 'bitcoin', amount: '0.0005' }, state, { now: at(14 * 60_000) });
    const after = sighted.reduce(evolveCheckout, state);
    expect(timersForCheckoutEvent(sighted[0], after, at(14 * 60_000).toISOString())).toEqual([
      // a live quote's expiry names its network: it waits for that network's watcher (0025 addendum, 2026-11-29, lateness at mining)
      { id: `${TIMER_KINDS.quoteExpiry}:chk_1:sighted:${TX}`, businessId: 'biz_1', kind: TIMER_KINDS.quoteExpiry, subject: 'chk_1', payload: { network: 'bitcoin' }, dueAt: at(14 * 60_000 + 24 * 3600_000) },
    ]);
    const dropped: CheckoutEvent = { type: 'CheckoutSightingDropped', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: TX } };
    expect(timersForCheckoutEvent(dropped, evolveCheckout(after, dropped), at(20 * 60_000).toISOString())).toEqual([]);
  });

  it('PaymentTransferSighted → the payment expiry timer again a day after the sighting; PaymentSightingDropped → again at the payment expiry (at once when past)', () => {
    const created: PaymentEvent = {
      type: 'PaymentCreated',
      data: { payment_id: 'pmt_1', amount: 3000, currency: 'USD', fee_payer: 'business', fee_rate_bps: 0, customer_fee: 0, link_id: null, expires_at: at(3600_000).toISOString(), business_id: 'biz_1' } as never,
    };
    const selected: PaymentEvent = {
      type: 'PaymentMethodSelected',
      data: { checkout_id: 'chk_1', rail: 'crypto', asset: 'BTC', network: 'bitcoin', expected_amount: '0.0005', rate: { amount: 6_000_000, currency: 'USD' }, quoted_amount: 3000, quote_ends_at: at(15 * 60_000).toISOString() },
    };
    const sighted: PaymentEvent = { type: 'PaymentTransferSighted', data: { checkout_id: 'chk_1', tx_hash: TX, sighted_at: at(14 * 60_000).toISOString() } };
    const state = [created, selected, sighted].reduce(evolvePayment, initialPaymentState);
    expect(timersForPaymentEvent(sighted, state)).toEqual([
      { id: `${TIMER_KINDS.paymentExpiry}:pmt_1:sighted:chk_1:${TX}`, businessId: 'biz_1', kind: TIMER_KINDS.paymentExpiry, subject: 'pmt_1', dueAt: at(14 * 60_000 + 24 * 3600_000) },
    ]);
    const dropped: PaymentEvent = { type: 'PaymentSightingDropped', data: { checkout_id: 'chk_1', tx_hash: TX } };
    expect(timersForPaymentEvent(dropped, evolvePayment(state, dropped))).toEqual([
      { id: `${TIMER_KINDS.paymentExpiry}:pmt_1:dropped:chk_1:${TX}`, businessId: 'biz_1', kind: TIMER_KINDS.paymentExpiry, subject: 'pmt_1', dueAt: at(3600_000) },
    ]);
  });
});
