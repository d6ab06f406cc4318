import { CheckoutCommand, CheckoutEvent, PaymentCommand, PaymentEvent, decideCheckout, decidePayment, evolveCheckout, initialCheckoutState, initialPaymentState } from '../../libs/payments/src/domain';
import { T0, at, givenCheckout, givenPayment } from './given-when-then';

/** The card rail's rules (decision 0026), given/when/then on the checkout and payment deciders. */
const checkout = givenCheckout;
const payment = givenPayment;
const TTL = 10 * 60_000;

const openCmd: CheckoutCommand = {
  type: 'OpenCardCheckout', checkoutId: 'chk_1', paymentId: 'pmt_1', linkId: null, simulated: true, currency: 'USD', priceMinor: 10_000,
  feePayer: 'business', feeRateBps: 100, routes: ['simulated_a', 'simulated_b'], attemptTtlMs: TTL,
};
const opened = decideCheckout(openCmd, initialCheckoutState, { now: T0 });
const start = (attemptId: string, processor: string, route?: number): CheckoutCommand => ({
  type: 'StartCardAttempt', attemptId, processor, route, ref: `ref_${attemptId}`, secureUrl: `https://pay.example/${attemptId}`, expiresAt: new Date(T0.getTime() + TTL).toISOString(),
});
const started = [...opened, ...checkout(opened).when(start('att_1', 'simulated_a')).events()];
const succeeded: CheckoutCommand = { type: 'RecordCardResult', attemptId: 'att_1', result: { status: 'succeeded', brand: 'visa', last4: '4242', amountMinor: 10_000, currency: 'USD' } };
const declined = (code: string, retryable: boolean, attemptId = 'att_1'): CheckoutCommand => ({ type: 'RecordCardResult', attemptId, result: { status: 'declined', declineCode: code, retryable, brand: 'visa', last4: '0002' } });
const after = (given: CheckoutEvent[], command: CheckoutCommand, now = T0) => [...given, ...checkout(given, now).when(command).events()];

describe('card checkout decider (decision 0026)', () => {
  it('opens a card checkout: the card breakdown, the routes, no quote', () => {
    expect(opened).toEqual([
      {
        type: 'CardCheckoutOpened',
        data: { checkout_id: 'chk_1', payment_id: 'pmt_1', link_id: null, rail: 'card', remainder: false, simulated: true, breakdown: { currency: 'USD', price: 10_000, processing_fee: null, network_fee: null, total: 10_000 }, routes: ['simulated_a', 'simulated_b'], attempt_ttl_ms: TTL },
      },
    ]);
  });
  it('the customer pays the fee: processing_fee in the breakdown, the total is charged', () => {
    const events = checkout([]).when({ ...openCmd, feePayer: 'customer' }).events();
    expect(events[0].data).toMatchObject({ breakdown: { processing_fee: 100, network_fee: null, total: 10_100 } });
  });
  it('card price: the total outside $5 to $10,000 → amount_out_of_range (also when the customer’s fee takes it over)', () => {
    checkout([]).when({ ...openCmd, priceMinor: 499 }).then('amount_out_of_range');
    checkout([]).when({ ...openCmd, priceMinor: 1_000_001 }).then('amount_out_of_range');
    checkout([]).when({ ...openCmd, priceMinor: 1_000_000, feePayer: 'customer' }).then('amount_out_of_range');
    expect(() => decideCheckout({ ...openCmd, priceMinor: 499 }, initialCheckoutState, { now: T0 })).toThrow(/^The card price must be between 5 and 10,000 USD \(500 to 1000000 minor units\)\.$/); // one pair of brackets
    expect(checkout([]).when({ ...openCmd, priceMinor: 500 }).events()).toHaveLength(1);
    expect(checkout([]).when({ ...openCmd, priceMinor: 1_000, currency: 'JPY' }).events()).toHaveLength(1); // ¥5 to ¥10,000
  });
  it('no route → rail_unavailable', () => {
    checkout([]).when({ ...openCmd, routes: [] }).then('rail_unavailable');
  });
  it('open → start attempt → awaiting_customer on route 1; the same attempt again changes nothing', () => {
    checkout(opened).when(start('att_1', 'simulated_a', 1)).then([
      { type: 'CheckoutCardAttemptStarted', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', attempt_id: 'att_1', number: 1, route: 1, processor: 'simulated_a', ref: 'ref_att_1', secure_url: 'https://pay.example/att_1', expires_at: at(TTL).toISOString() } },
    ]);
    checkout(opened).when(start('att_1', 'simulated_a')).thenIdempotent();
  });
  it('a route the page shows that is not the checkout’s → stale_route', () => {
    checkout(opened).when(start('att_1', 'simulated_a', 2)).then('stale_route');
  });
  it('an attempt pending → route_in_progress', () => {
    checkout(started).when(start('att_2', 'simulated_b')).then('route_in_progress');
  });
  it('succeeded on the awaited attempt → completed; recorded once', () => {
    const events = checkout(started).when(succeeded).thenIdempotent();
    expect(events).toEqual([
      { type: 'CheckoutCardAttemptSucceeded', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', attempt_id: 'att_1', processor: 'simulated_a', brand: 'visa', last4: '4242', amount: 10_000, currency: 'USD', status: 'completed', review_reason: null } },
    ]);
  });
  it('declined → failed with the decline code → next attempt on route 2 → awaiting_customer again', () => {
    const failed = after(started, declined('card_declined', true));
    expect(failed[failed.length - 1]).toEqual({ type: 'CheckoutCardAttemptDeclined', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', attempt_id: 'att_1', decline_code: 'card_declined', retryable: true, brand: 'visa', last4: '0002', failed: true } });
    const state = failed.reduce(evolveCheckout, initialCheckoutState);
    expect(state).toMatchObject({ status: 'failed', failureCode: 'card_declined' });
    checkout(failed).when(start('att_2', 'simulated_b', 1)).then('stale_route');
    const next = after(failed, start('att_2', 'simulated_b', 2));
    expect(next.reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'awaiting_customer', failureCode: null });
  });
  it('a do-not-retry decline → checkout_not_retryable', () => {
    checkout(after(started, declined('do_not_retry', false))).when(start('att_2', 'simulated_b')).then('checkout_not_retryable');
  });
  it('every route used → no_route', () => {
    const second = after(after(after(started, declined('insufficient_funds', true)), start('att_2', 'simulated_b')), declined('insufficient_funds', true, 'att_2'));
    checkout(second).when(start('att_3', 'simulated_b')).then('no_route');
  });
  it('canceled, completed → checkout_not_awaiting', () => {
    checkout(after(opened, { type: 'CancelCheckout' })).when(start('att_1', 'simulated_a')).then('checkout_not_awaiting');
    checkout(after(started, succeeded)).when(start('att_2', 'simulated_b')).then('checkout_not_awaiting');
    // failed by its payment (canceled, expired), not by a card result
    checkout(after(opened, { type: 'FailCheckout', failureCode: 'payment_canceled' })).when(start('att_1', 'simulated_a')).then('checkout_not_awaiting');
  });
  it('the attempt’s timer: early → nothing; at its end → timed out, failed with processor_timeout, retryable on the next route', () => {
    checkout(started, at(TTL - 1)).when({ type: 'TimeOutCardAttempt', attemptId: 'att_1' }).then([]);
    const timedOut = after(started, { type: 'TimeOutCardAttempt', attemptId: 'att_1' }, at(TTL));
    expect(timedOut[timedOut.length - 1]).toEqual({ type: 'CheckoutCardAttemptTimedOut', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', attempt_id: 'att_1', failed: true } });
    expect(timedOut.reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'failed', failureCode: 'processor_timeout' });
    expect(checkout(timedOut).when(start('att_2', 'simulated_b', 2)).events()).toHaveLength(1);
    checkout(timedOut, at(TTL)).when({ type: 'TimeOutCardAttempt', attemptId: 'att_1' }).then([]);
  });
  it('§3 canceled while the secure page is open, then succeeded → needs_review (paid_after_cancel)', () => {
    const canceled = after(started, { type: 'CancelCheckout' });
    const events = checkout(canceled).when(succeeded).events();
    expect(events[0].data).toMatchObject({ status: 'needs_review', review_reason: 'paid_after_cancel' });
    expect([...canceled, ...events].reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'needs_review', reviewReason: 'paid_after_cancel', canceledBy: 'customer' });
  });
  it('canceled, paid on the page (paid_after_cancel), then the payment accepted → completed; paid another way → failed (payment_succeeded); the review reason stays (0025 addendum, 2026-11-29)', () => {
    const review = after(after(started, { type: 'CancelCheckout' }), succeeded);
    const accepted = checkout(review).when({ type: 'ResolveReview', resolution: 'payment_accepted', counted: true }).thenIdempotent();
    expect(accepted).toEqual([{ type: 'CheckoutReviewResolved', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', resolution: 'payment_accepted', status: 'completed', failure_code: null } }]);
    expect([...review, ...accepted].reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'completed', reviewReason: 'paid_after_cancel', canceledBy: 'customer' });
    const other = checkout(review).when({ type: 'ResolveReview', resolution: 'payment_accepted', counted: false }).events();
    expect([...review, ...other].reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'failed', failureCode: 'payment_succeeded', failedByAttempt: false, reviewReason: 'paid_after_cancel' });
    checkout(started).when({ type: 'ResolveReview', resolution: 'payment_accepted', counted: true }).then([]); // not in review
  });
  it('completed on a charge its payment could not take (a transfer on its way to another quote): HoldCardCharge → needs_review with the payment’s reason; in review already, or not completed on that attempt: nothing (race audit F3, 2026-11-29)', () => {
    const completed = after(started, succeeded);
    expect(completed.reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'completed' });
    const held = checkout(completed).when({ type: 'HoldCardCharge', attemptId: 'att_1', reason: 'paid_after_close' }).thenIdempotent();
    expect(held).toEqual([{ type: 'CheckoutCardChargeHeld', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', attempt_id: 'att_1', review_reason: 'paid_after_close' } }]);
    expect([...completed, ...held].reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'needs_review', reviewReason: 'paid_after_close' });
    // then the payment accepted without it: the review ends as any other (failed, payment_succeeded; the reason kept)
    const ended = checkout([...completed, ...held]).when({ type: 'ResolveReview', resolution: 'payment_accepted', counted: false }).events();
    expect([...completed, ...held, ...ended].reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'failed', failureCode: 'payment_succeeded', reviewReason: 'paid_after_close' });
    checkout(after(after(started, { type: 'CancelCheckout' }), succeeded)).when({ type: 'HoldCardCharge', attemptId: 'att_1', reason: 'paid_after_cancel' }).then([]); // in review already
    checkout(started).when({ type: 'HoldCardCharge', attemptId: 'att_1', reason: 'paid_after_close' }).then([]); // not charged
    checkout(completed).when({ type: 'HoldCardCharge', attemptId: 'att_9', reason: 'paid_after_close' }).then([]); // another attempt
  });
  it('failed by its payment, then succeeded → needs_review (paid_after_close); a decline there changes only the attempt', () => {
    const closed = after(started, { type: 'FailCheckout', failureCode: 'payment_canceled' });
    expect(checkout(closed).when(succeeded).events()[0].data).toMatchObject({ status: 'needs_review', review_reason: 'paid_after_close' });
    const decline = checkout(closed).when(declined('card_declined', true)).events();
    expect(decline[0].data).toMatchObject({ failed: false });
    expect([...closed, ...decline].reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'failed', failureCode: 'payment_canceled' });
  });
  it('supersede: open, awaiting_customer, failed on a decline; not completed, not failed by the payment', () => {
    checkout(opened).when({ type: 'SupersedeCheckout', by: 'customer' }).then([{ type: 'CheckoutSuperseded', data: { checkout_id: 'chk_1' } }]);
    checkout(started).when({ type: 'SupersedeCheckout', by: 'customer' }).thenIdempotent();
    checkout(after(started, declined('card_declined', true))).when({ type: 'SupersedeCheckout', by: 'customer' }).then([{ type: 'CheckoutSuperseded', data: { checkout_id: 'chk_1' } }]);
    checkout(after(started, succeeded)).when({ type: 'SupersedeCheckout', by: 'customer' }).then('checkout_not_supersedable');
    checkout(after(opened, { type: 'FailCheckout', failureCode: 'payment_expired' })).when({ type: 'SupersedeCheckout', by: 'customer' }).then('checkout_not_supersedable');
  });
  it('crypto-only commands: claim and mark-sent → wrong_rail; a chain report or the quote timer → nothing', () => {
    checkout(after(opened, { type: 'CancelCheckout' })).when({ type: 'ClaimCheckout', txHash: '0x' + 'ab'.repeat(32), paymentSucceeded: false }).then('wrong_rail');
    checkout(opened).when({ type: 'MarkSent', simulate: 'exact', txHash: 'x' }).then('wrong_rail');
    checkout(opened).when({ type: 'DetectTransfer', txHash: 'x', network: 'ethereum', amount: '1' }).then([]);
    checkout(opened, at(60 * 60_000)).when({ type: 'ExpireCheckout' }).then([]);
  });
  it('card commands on a crypto checkout → wrong_rail', () => {
    const crypto = decideCheckout(
      { type: 'OpenCheckout', checkoutId: 'chk_2', paymentId: 'pmt_1', linkId: null, rail: 'crypto', simulated: true, asset: 'USDC', network: 'ethereum', address: '0x' + '11'.repeat(20), rateMinorPerCoin: 100, currency: 'USD', priceMinor: 10_000, feePayer: 'business', feeRateBps: 100, remainder: null, quoteTtlMs: 15 * 60_000 },
      initialCheckoutState,
      { now: T0 },
    );
    checkout(crypto).when(start('att_1', 'simulated_a')).then('wrong_rail');
    checkout(crypto).when(succeeded).then('wrong_rail');
  });
});

describe('payment decider: card method and charges (decision 0026)', () => {
  const created: PaymentEvent[] = decidePayment({ type: 'CreatePayment', paymentId: 'pmt_1', amount: 10_000, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId: null, expiresAt: null }, initialPaymentState, { now: T0 });
  const selected = [...created, ...payment(created).when({ type: 'SelectCardMethod', checkoutId: 'chk_1', quotedMinor: 10_000, country: 'US' }).events()];
  const charge = (review: 'paid_after_cancel' | null = null, attemptId = 'att_1'): PaymentCommand => ({ type: 'RecordCardPayment', checkoutId: 'chk_1', attemptId, processor: 'simulated_a', brand: 'visa', last4: '4242', amountMinor: 10_000, review });

  it('select the card method → PaymentCardMethodSelected; again → nothing', () => {
    payment(created).when({ type: 'SelectCardMethod', checkoutId: 'chk_1', quotedMinor: 10_000, country: 'US' }).then([{ type: 'PaymentCardMethodSelected', data: { checkout_id: 'chk_1', rail: 'card', quoted_amount: 10_000, country: 'US' } }]);
    payment(created).when({ type: 'SelectCardMethod', checkoutId: 'chk_1', quotedMinor: 10_000, country: 'US' }).thenIdempotent();
  });
  it('a payment that cannot take a checkout refuses the card method: payment_canceled', () => {
    const canceled = [...created, ...payment(created).when({ type: 'CancelPayment' }).events()];
    payment(canceled).when({ type: 'SelectCardMethod', checkoutId: 'chk_1', quotedMinor: 10_000, country: 'US' }).then('payment_canceled');
  });
  it('a charge on the awaited checkout → succeeded with what was charged, fee from the rate, no transaction fee; recorded once', () => {
    const events = payment(selected).when(charge()).thenIdempotent();
    expect(events).toEqual([
      { type: 'PaymentCardCharged', data: { checkout_id: 'chk_1', attempt_id: 'att_1', processor: 'simulated_a', brand: 'visa', last4: '4242', amount: 10_000, review: null } },
      { type: 'PaymentCheckoutEnded', data: { checkout_id: 'chk_1', outcome: 'completed' } },
      { type: 'PaymentSucceeded', data: { amount_received: 10_000, received_amount: '100', overpaid_amount: null, accepted: false, reporting: { currency: 'USD', amount: 10_000, fee: 100, transaction_fee: 0, customer_fee: 0, net: 9_900 } } },
    ]);
  });
  it('a charge under review (paid after cancel) → needs_review; accept → succeeded counting the charge', () => {
    const review = [...selected, ...payment(selected).when(charge('paid_after_cancel')).events()];
    expect(review.slice(selected.length).map((e) => e.type)).toEqual(['PaymentCardCharged', 'PaymentNeedsReview']);
    expect(review[review.length - 1].data).toEqual({ checkout_id: 'chk_1', reason: 'paid_after_cancel', attempt_id: 'att_1' });
    const accepted = payment(review).when({ type: 'AcceptPayment' }).events();
    expect(accepted.map((e) => e.type)).toEqual(['PaymentAccepted', 'PaymentSucceeded']);
    expect(accepted[1].data).toMatchObject({ amount_received: 10_000, accepted: true });
  });
  it('a second charge on a succeeded payment is recorded for review, the status stays succeeded', () => {
    const paid = [...selected, ...payment(selected).when(charge()).events()];
    const events = payment(paid).when(charge(null, 'att_2')).events();
    expect(events).toEqual([{ type: 'PaymentCardCharged', data: expect.objectContaining({ attempt_id: 'att_2', review: 'paid_after_close' }) }]);
  });
  it('a second charge under review on a payment in review is recorded without a second PaymentNeedsReview (0025 addendum, 2026-11-28, second: reviewed once)', () => {
    const review = [...selected, ...payment(selected).when(charge('paid_after_cancel')).events()];
    const events = payment(review).when(charge('paid_after_cancel', 'att_2')).thenIdempotent();
    expect(events).toEqual([{ type: 'PaymentCardCharged', data: expect.objectContaining({ attempt_id: 'att_2', review: 'paid_after_cancel' }) }]);
  });
});
