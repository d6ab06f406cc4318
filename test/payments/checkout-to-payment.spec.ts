import {
  CheckoutEvent,
  CheckoutState,
  OpenCryptoCheckout,
  PaymentEvent,
  decideCheckout,
  decidePayment,
  foldPayment,
  initialCheckoutState,
  initialPaymentState,
  react,
  reactionEventId,
  reactionId,
  timeline,
  uuidv5,
} from '../../libs/payments/src/domain';
import { T0, at } from './given-when-then';
import { Harness } from './harness';

const MIN = 60_000;
const HASH = '0x' + 'ab'.repeat(32);
const HASH2 = '0x' + 'cd'.repeat(32);
const HASH3 = '0x' + 'ef'.repeat(32);
const types = (events: (PaymentEvent | CheckoutEvent)[]) => events.map((e) => e.type);

const openCmd = (checkoutId = 'chk_1', simulated = true): OpenCryptoCheckout => ({
  type: 'OpenCheckout', checkoutId, paymentId: 'pmt_1', linkId: null, rail: 'crypto', simulated,
  asset: 'USDC', network: 'ethereum', address: '0x' + '11'.repeat(20), rateMinorPerCoin: 100, currency: 'USD',
  priceMinor: 10_000, feePayer: 'business', feeRateBps: 100, remainder: null, quoteTtlMs: 15 * MIN,
});

/** A payment of 100.00 USD with a checkout open on it (100 USDC on ethereum, 4 confirmations). */
function started(linkId: string | null = null): Harness {
  const h = new Harness(T0);
  h.payment('pmt_1', { type: 'CreatePayment', paymentId: 'pmt_1', amount: 10_000, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId, expiresAt: '2025-01-02T00:00:00.000Z' });
  h.checkout('chk_1', { ...openCmd(), linkId });
  return h;
}
const confirmAll = (h: Harness, checkoutId: string, txHash = HASH) => h.checkout(checkoutId, { type: 'RecordConfirmations', txHash, current: 4 });

/** A payment whose first checkout was paid short (confirmed), then expired, and whose remainder checkout chk_2 is open, 20 minutes in. */
function withOpenRemainder(): Harness {
  const h = started();
  h.at(at(MIN)).checkout('chk_1', { type: 'MarkSent', simulate: 'underpaid', txHash: HASH });
  confirmAll(h, 'chk_1');
  h.at(at(16 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
  h.at(at(20 * MIN)).payment('pmt_1', { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true });
  return h;
}
const status = (s: CheckoutState | { status: string }) => s.status;

describe('uuidv5 and reaction ids', () => {
  it('is RFC 4122 v5 (known vector) and deterministic per causing event, stream and command', () => {
    expect(uuidv5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    const id = reactionId('0f4c7a8e-1111-4222-8333-944455556666', 'payment-pmt_1', 'RecordTransfer');
    expect(id).toBe(reactionId('0F4C7A8E-1111-4222-8333-944455556666', 'payment-pmt_1', 'RecordTransfer'));
    expect(id).not.toBe(reactionId('0f4c7a8e-1111-4222-8333-944455556666', 'payment-pmt_2', 'RecordTransfer'));
    expect(reactionEventId(id, 0)).not.toBe(reactionEventId(id, 1));
    expect(reactionEventId(id, 0)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('react (pure mapping)', () => {
  const eventId = '0f4c7a8e-1111-4222-8333-944455556666';
  const opened = decideCheckout(openCmd(), initialCheckoutState, { now: T0 });
  it('CheckoutOpened → SelectMethod with the quote; a remainder checkout → nothing', () => {
    const [r] = react(opened[0], { eventId, checkout: initialCheckoutState });
    expect(r).toMatchObject({ target: 'payment', stream: 'payment-pmt_1', causationId: eventId, command: { type: 'SelectMethod', checkoutId: 'chk_1', asset: 'USDC', network: 'ethereum', rateMinorPerCoin: 100, quoteEndsAt: '2025-01-01T00:15:00.000Z' } });
    const rem = decideCheckout({ ...openCmd('chk_2'), remainder: { amount: '10', priceMinor: 1000 } }, initialCheckoutState, { now: T0 });
    expect(react(rem[0], { eventId, checkout: initialCheckoutState })).toEqual([]);
  });
  it('the same event gives the same reactions (ids included)', () => {
    expect(react(opened[0], { eventId, checkout: initialCheckoutState })).toEqual(react(opened[0], { eventId, checkout: initialCheckoutState }));
  });
  it('PaymentCardCharged under review → HoldCardCharge to its checkout with the reason; a charge counted → nothing (race audit F3, 2026-11-29)', () => {
    const charged = (review: 'paid_after_close' | 'paid_after_cancel' | null) =>
      ({ type: 'PaymentCardCharged', data: { checkout_id: 'chk_9', attempt_id: 'att_1', processor: 'simulated_a', brand: 'visa', last4: '4242', amount: 10_000, review } }) as const;
    const payment = foldPayment(decidePayment({ type: 'CreatePayment', paymentId: 'pmt_1', amount: 10_000, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId: null, expiresAt: null }, initialPaymentState, { now: T0 }));
    const [r] = react(charged('paid_after_close'), { eventId, payment });
    expect(r).toMatchObject({ target: 'checkout', stream: 'checkout-chk_9', command: { type: 'HoldCardCharge', attemptId: 'att_1', reason: 'paid_after_close' } });
    expect(react(charged(null), { eventId, payment })).toEqual([]);
  });
  it('a payment event without its state is a programming error', () => {
    expect(() => react({ type: 'PaymentCanceled', data: { payment_id: 'pmt_1' } }, { eventId })).toThrow(/needs the payment state/);
  });
});

describe('checkout ⇄ payment end to end (in-memory streams)', () => {
  it('exact payment → confirmations → succeeded; timeline in order', () => {
    const h = started();
    h.at(at(MIN)).checkout('chk_1', { type: 'MarkSent', simulate: 'exact', txHash: HASH });
    confirmAll(h, 'chk_1');
    expect(h.timeline('pmt_1')).toEqual(['created', 'method_selected', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'succeeded']);
    expect(status(h.paymentState('pmt_1'))).toBe('succeeded');
    expect(status(h.checkoutState('chk_1'))).toBe('completed');
    expect(types(h.paymentEvents('pmt_1')).at(-1)).toBe('PaymentCheckoutEnded'); // the completed checkout closed on the payment
  });

  it('underpaid 90% → underpaid + awaiting_customer → request remainder → remainder paid → succeeded, one payment', () => {
    const h = started();
    h.at(at(MIN)).checkout('chk_1', { type: 'MarkSent', simulate: 'underpaid', txHash: HASH });
    confirmAll(h, 'chk_1');
    expect(status(h.paymentState('pmt_1'))).toBe('underpaid');
    expect(status(h.checkoutState('chk_1'))).toBe('awaiting_customer');
    h.at(at(16 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
    expect(status(h.checkoutState('chk_1'))).toBe('expired');
    h.at(at(20 * MIN)).payment('pmt_1', { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true });
    const remainder = h.checkoutState('chk_2');
    expect(remainder).toMatchObject({ status: 'open', remainder: true, paymentId: 'pmt_1', expected: 10_000_000n });
    h.checkout('chk_2', { type: 'MarkSent', simulate: 'exact', txHash: HASH2 });
    confirmAll(h, 'chk_2', HASH2);
    expect(status(h.checkoutState('chk_2'))).toBe('completed');
    expect(h.payments.size).toBe(1);
    const events = h.paymentEvents('pmt_1');
    expect(types(events).filter((t) => t === 'PaymentSucceeded')).toHaveLength(1);
    expect(events.find((e) => e.type === 'PaymentSucceeded')!.data).toMatchObject({ amount_received: 10_000, received_amount: '100', overpaid_amount: null });
    expect(h.timeline('pmt_1')).toEqual(['created', 'method_selected', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'underpaid',
      'remainder_requested', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'remainder_paid', 'succeeded']);
  });

  it('overpaid 110% → succeeded with overpaid_amount', () => {
    const h = started();
    h.checkout('chk_1', { type: 'MarkSent', simulate: 'overpaid', txHash: HASH });
    confirmAll(h, 'chk_1');
    const succeeded = h.paymentEvents('pmt_1').find((e) => e.type === 'PaymentSucceeded');
    expect(succeeded?.data).toMatchObject({ overpaid_amount: '10', amount_received: 11_000 });
    expect(h.checkoutEvents('chk_1').at(-1)).toMatchObject({ type: 'CheckoutCompleted', data: { overpaid_amount: '10' } });
  });

  it.each(['wrong_network', 'late'] as const)('%s → payment needs_review (confirmations do not succeed it)', (simulate) => {
    const h = started();
    h.checkout('chk_1', { type: 'MarkSent', simulate, txHash: HASH });
    expect(status(h.paymentState('pmt_1'))).toBe('needs_review');
    expect(status(h.checkoutState('chk_1'))).toBe('needs_review');
    const detected = h.paymentEvents('pmt_1').find((e) => e.type === 'PaymentTransferDetected');
    expect(detected?.data).toMatchObject({ review: simulate });
    confirmAll(h, 'chk_1');
    expect(status(h.paymentState('pmt_1'))).toBe('needs_review');
  });

  it('claim on an expired checkout → payment needs_review with claimed', () => {
    const h = started();
    h.at(at(15 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
    h.checkout('chk_1', { type: 'ClaimCheckout', txHash: HASH, paymentSucceeded: false });
    expect(status(h.paymentState('pmt_1'))).toBe('needs_review');
    expect(h.paymentState('pmt_1')).toMatchObject({ claimTxHash: HASH });
    expect(h.timeline('pmt_1')).toEqual(['created', 'method_selected', 'claimed']);
  });

  it('business cancels a pending payment → its open checkout fails', () => {
    const h = started();
    h.checkout('chk_0', { ...openCmd('chk_0') }); // an earlier attempt, still open
    h.at(at(2 * MIN)).payment('pmt_1', { type: 'CancelPayment' });
    expect(status(h.paymentState('pmt_1'))).toBe('canceled');
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'failed', failureCode: 'payment_canceled' });
    expect(h.checkoutState('chk_0')).toMatchObject({ status: 'failed', failureCode: 'payment_canceled' });
    expect(h.timeline('pmt_1')).toEqual(['created', 'method_selected', 'method_selected', 'canceled']);
  });

  it('link checkout canceled by the customer → link payment failed; its checkout stays canceled', () => {
    const h = started('lnk_1');
    h.checkout('chk_1', { type: 'CancelCheckout' });
    expect(status(h.paymentState('pmt_1'))).toBe('failed');
    expect(status(h.checkoutState('chk_1'))).toBe('canceled');
  });

  it('link checkout expired with nothing sent → link payment failed (checkout_expired), no longer pending for ever; an API payment stays pending until its own expiry; a late transfer is still claimable (0009 addendum, nineteenth session; outside audit)', () => {
    const link = started('lnk_1');
    link.at(at(15 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
    expect(link.paymentState('pmt_1')).toMatchObject({ status: 'failed', failureCode: 'checkout_expired' });
    expect(link.paymentEvents('pmt_1').at(-1)).toMatchObject({ type: 'PaymentFailed', data: { reason: 'expired', failure_code: 'checkout_expired' } });
    link.checkout('chk_1', { type: 'ClaimCheckout', txHash: HASH, paymentSucceeded: false }); // the customer paid late: the business reviews it
    expect(status(link.paymentState('pmt_1'))).toBe('needs_review');
    expect(link.replay()).toBe(0);
    const api = started();
    api.at(at(15 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
    expect(status(api.paymentState('pmt_1'))).toBe('pending');
    const sent = started('lnk_1'); // something on its way when the quote ends: the payment waits for it
    sent.at(at(MIN)).checkout('chk_1', { type: 'MarkSent', simulate: 'underpaid', txHash: HASH });
    confirmAll(sent, 'chk_1');
    sent.at(at(16 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
    expect(status(sent.paymentState('pmt_1'))).toBe('underpaid');
  });

  it('link card checkout canceled by the customer → link payment failed too (§3: cancel of a link\'s checkout gives payment.failed; card audit, 2026-11-28)', () => {
    const h = new Harness(T0);
    h.payment('pmt_1', { type: 'CreatePayment', paymentId: 'pmt_1', amount: 10_000, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId: 'lnk_1', expiresAt: '2025-01-02T00:00:00.000Z' });
    h.checkout('chk_1', { type: 'OpenCardCheckout', checkoutId: 'chk_1', paymentId: 'pmt_1', linkId: 'lnk_1', simulated: true, currency: 'USD', priceMinor: 10_000, feePayer: 'business', feeRateBps: 100, routes: ['simulated_a'], attemptTtlMs: 10 * MIN });
    h.checkout('chk_1', { type: 'CancelCheckout' });
    expect(status(h.checkoutState('chk_1'))).toBe('canceled');
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'failed', failureCode: 'checkout_canceled' });
    expect(h.timeline('pmt_1').at(-1)).toBe('failed');
  });

  it('payment expiry → failed + checkout failed', () => {
    const h = started();
    h.at(at(24 * 3600_000)).payment('pmt_1', { type: 'ExpirePayment' });
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'failed', failureCode: 'payment_expired' });
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'failed', failureCode: 'payment_expired' });
    expect(h.timeline('pmt_1')).toEqual(['created', 'method_selected', 'expired', 'failed']);
  });

  it('a second real transfer while confirming is recorded and counted: 90 + 10 → completed, succeeded (no underpaid)', () => {
    const h = started();
    h.at(at(MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '90' });
    h.checkout('chk_1', { type: 'DetectTransfer', txHash: HASH2, network: 'ethereum', amount: '10' });
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'confirming', received: 100_000_000n });
    confirmAll(h, 'chk_1', HASH);
    expect(status(h.checkoutState('chk_1'))).toBe('confirming'); // the second transfer decides
    expect(status(h.paymentState('pmt_1'))).toBe('pending');
    confirmAll(h, 'chk_1', HASH2);
    expect(status(h.checkoutState('chk_1'))).toBe('completed');
    expect(h.paymentEvents('pmt_1').find((e) => e.type === 'PaymentSucceeded')?.data).toMatchObject({ received_amount: '100', overpaid_amount: null });
    expect(h.timeline('pmt_1')).not.toContain('underpaid');
  });

  it('wrong network first (needs_review), then the quoted amount on the quoted network: both listed on the payment, no second review; checkout and payment stay in review for the business (0025 addendum, 2026-11-28, second)', () => {
    const h = started();
    h.at(at(MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH, network: 'polygon', amount: '100' });
    expect(status(h.paymentState('pmt_1'))).toBe('needs_review');
    h.at(at(2 * MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH2, network: 'ethereum', amount: '100' });
    confirmAll(h, 'chk_1', HASH2);
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'needs_review', reviewReason: 'wrong_network', received: 100_000_000n });
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'needs_review', received: 100_000_000n });
    const detected = h.paymentEvents('pmt_1').filter((e) => e.type === 'PaymentTransferDetected').map((e) => e.data);
    expect(detected).toEqual([expect.objectContaining({ tx_hash: HASH, network: 'polygon', review: 'wrong_network' }), expect.objectContaining({ tx_hash: HASH2, network: 'ethereum', review: null })]);
    expect(h.paymentEvents('pmt_1').filter((e) => e.type === 'PaymentNeedsReview')).toHaveLength(1);
    expect(h.timeline('pmt_1')).toEqual(['created', 'method_selected', 'detected', 'needs_review', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation']); // one review (0012 addendum, 2026-11-30: it is an entry)
    expect(h.replay()).toBe(0);
  });

  it('claimed, then all that is due arrives at the claimed checkout: the checkout completes and the payment succeeds (not accepted), and they agree (0025 addendum, 2026-11-28, second)', () => {
    const h = started();
    h.at(at(15 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
    h.checkout('chk_1', { type: 'ClaimCheckout', txHash: HASH, paymentSucceeded: false });
    h.at(at(20 * MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '100' }); // the claimed transaction, seen at last
    expect(status(h.checkoutState('chk_1'))).toBe('needs_review');
    expect(status(h.paymentState('pmt_1'))).toBe('needs_review');
    confirmAll(h, 'chk_1', HASH);
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'completed', reviewReason: null });
    expect(h.paymentEvents('pmt_1').at(-1)).toMatchObject({ type: 'PaymentSucceeded', data: { received_amount: '100', accepted: false } });
    expect(h.paymentEvents('pmt_1').filter((e) => e.type === 'PaymentCheckoutEnded')).toHaveLength(1); // ended once, when it expired
    expect(h.timeline('pmt_1')).toEqual(['created', 'method_selected', 'claimed', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'succeeded']);
    expect(h.replay()).toBe(0);
  });

  it('completed, then a transfer on another network: listed on the payment for review (wrong_network), never counted; the payment stays succeeded, the checkout completed (0025 addendum, 2026-11-28, second)', () => {
    const h = started();
    h.at(at(MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '100' });
    confirmAll(h, 'chk_1', HASH);
    h.at(at(30 * MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH2, network: 'polygon', amount: '5' });
    confirmAll(h, 'chk_1', HASH2);
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'completed', reviewReason: null, received: 100_000_000n });
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'succeeded', received: 100_000_000n });
    expect(h.paymentEvents('pmt_1').filter((e) => e.type === 'PaymentTransferDetected').at(-1)?.data).toMatchObject({ tx_hash: HASH2, network: 'polygon', review: 'wrong_network' });
    expect(h.paymentEvents('pmt_1').map((e) => e.type)).not.toContain('PaymentNeedsReview');
    expect(h.paymentEvents('pmt_1').map((e) => e.type)).not.toContain('PaymentTransferCountedAfterSuccess');
    expect(h.replay()).toBe(0);
  });

  it('one transaction paying the first checkout (its quote ended) and the remainder one: each checkout credits its output, the payment lists both and counts each by its rule; a withdrawal takes only its checkout\'s output (0025 addendum, 2026-11-28, third)', () => {
    const h = started();
    h.at(at(MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '90' });
    confirmAll(h, 'chk_1', HASH);
    expect(status(h.paymentState('pmt_1'))).toBe('underpaid');
    h.at(at(17 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
    h.at(at(20 * MIN)).payment('pmt_1', { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true });
    // a batched withdrawal naming both addresses: 4 USDC to the first (late), 10 to the remainder
    h.at(at(21 * MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH3, network: 'ethereum', amount: '4' });
    h.checkout('chk_2', { type: 'DetectTransfer', txHash: HASH3, network: 'ethereum', amount: '10' });
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'needs_review', received: 94_000_000n });
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'confirming', received: 10_000_000n });
    const detected = () => h.paymentEvents('pmt_1').filter((e) => e.type === 'PaymentTransferDetected' && e.data.tx_hash === HASH3).map((e) => e.data);
    expect(detected()).toEqual([
      expect.objectContaining({ checkout_id: 'chk_1', amount: '4', review: 'late' }),
      expect.objectContaining({ checkout_id: 'chk_2', amount: '10', review: null }),
    ]);
    expect(status(h.paymentState('pmt_1'))).toBe('needs_review');
    // the chain reorganises: the first checkout's output is withdrawn, the remainder's stays on the payment
    h.at(at(22 * MIN)).checkout('chk_1', { type: 'WithdrawTransfer', txHash: HASH3 });
    expect(h.paymentEvents('pmt_1').filter((e) => e.type === 'PaymentTransferWithdrawn').map((e) => e.data)).toEqual([expect.objectContaining({ checkout_id: 'chk_1', tx_hash: HASH3, amount: '4' })]);
    confirmAll(h, 'chk_2', HASH3);
    const confirmations = h.paymentEvents('pmt_1').flatMap((e) => (e.type === 'PaymentConfirmationRecorded' && e.data.tx_hash === HASH3 ? [e.data.checkout_id] : []));
    expect(confirmations).toEqual(Array(4).fill('chk_2'));
    // counted: the remainder's output brings all that is due, and no money is left under review (the late output is gone): succeeded
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'succeeded', received: 100_000_000n });
    expect(h.paymentEvents('pmt_1').map((e) => e.type).filter((t) => t === 'PaymentRemainderPaid' || t === 'PaymentSucceeded')).toEqual(['PaymentRemainderPaid', 'PaymentSucceeded']);
    expect(h.replay()).toBe(0);
  });

  it('a transaction seen in the mempool at minute 14, mined after the quote and the payment expired: both held, counted on time, succeeded with the on-time timeline (0023 addendum, 2026-11-29)', () => {
    const h = started();
    h.at(at(14 * MIN)).checkout('chk_1', { type: 'SightTransfer', txHash: HASH, network: 'ethereum', amount: '100' });
    expect(h.paymentEvents('pmt_1').map((e) => e.type)).toContain('PaymentTransferSighted');
    h.at(at(15 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
    h.at(at(24 * 3600_000)).payment('pmt_1', { type: 'ExpirePayment' });
    expect(status(h.checkoutState('chk_1'))).toBe('open');
    expect(status(h.paymentState('pmt_1'))).toBe('pending');
    h.at(at(24 * 3600_000 + 5 * MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '100' });
    confirmAll(h, 'chk_1');
    expect(status(h.checkoutState('chk_1'))).toBe('completed');
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'succeeded', sightings: {} });
    expect(h.timeline('pmt_1')).toEqual(['created', 'method_selected', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'succeeded']);
    expect(h.replay()).toBe(0);
  });

  it('a sighting dropped after the quote ended: the checkout expires and the payment expiry applies again (0023 addendum, 2026-11-29)', () => {
    const h = started();
    h.at(at(14 * MIN)).checkout('chk_1', { type: 'SightTransfer', txHash: HASH, network: 'ethereum', amount: '100' });
    h.at(at(24 * 3600_000)).payment('pmt_1', { type: 'ExpirePayment' });
    expect(status(h.paymentState('pmt_1'))).toBe('pending');
    h.at(at(24 * 3600_000 + MIN)).checkout('chk_1', { type: 'DropSighting', txHash: HASH });
    expect(status(h.checkoutState('chk_1'))).toBe('expired');
    expect(h.paymentEvents('pmt_1').map((e) => e.type)).toEqual(expect.arrayContaining(['PaymentSightingDropped', 'PaymentCheckoutEnded']));
    h.payment('pmt_1', { type: 'ExpirePayment' });
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'failed', failureCode: 'payment_expired' });
    expect(h.replay()).toBe(0);
  });

  describe('the review of its checkouts ends when the payment succeeds (0025 addendum, 2026-11-29)', () => {
    it.each(['wrong_network', 'late'] as const)('%s, then the business accepts: the checkout completes (payment_accepted), the review reason kept; the payment gains only PaymentAccepted and PaymentSucceeded; replay-safe', (simulate) => {
      const h = started();
      h.checkout('chk_1', { type: 'MarkSent', simulate, txHash: HASH });
      expect(status(h.checkoutState('chk_1'))).toBe('needs_review');
      const paymentBefore = h.paymentEvents('pmt_1').length;
      const timelineBefore = h.timeline('pmt_1');
      h.at(at(30 * MIN)).payment('pmt_1', { type: 'AcceptPayment' });
      expect(h.checkoutState('chk_1')).toMatchObject({ status: 'completed', reviewReason: simulate });
      expect(h.checkoutEvents('chk_1').at(-1)).toEqual({ type: 'CheckoutReviewResolved', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', resolution: 'payment_accepted', status: 'completed', failure_code: null } });
      expect(types(h.paymentEvents('pmt_1').slice(paymentBefore))).toEqual(['PaymentAccepted', 'PaymentSucceeded']);
      expect(h.timeline('pmt_1')).toEqual([...timelineBefore, 'accepted', 'succeeded']); // the checkout's resolution adds nothing to the payment (the acceptance is an entry: 0012 addendum, 2026-11-30)
      expect(h.replay()).toBe(0);
    });

    it('claim on the first quote, then the remainder paid in full: the payment succeeds (not accepted), the claimed checkout fails (payment_succeeded), the remainder completed; replay-safe', () => {
      const h = withOpenRemainder();
      h.checkout('chk_1', { type: 'ClaimCheckout', txHash: HASH2, paymentSucceeded: false });
      expect(status(h.paymentState('pmt_1'))).toBe('needs_review');
      expect(status(h.checkoutState('chk_1'))).toBe('needs_review');
      h.checkout('chk_2', { type: 'MarkSent', simulate: 'exact', txHash: HASH3 });
      confirmAll(h, 'chk_2', HASH3);
      expect(h.paymentEvents('pmt_1').find((e) => e.type === 'PaymentSucceeded')).toMatchObject({ data: { accepted: false } });
      expect(types(h.paymentEvents('pmt_1')).filter((t) => t === 'PaymentAccepted')).toEqual([]);
      expect(h.checkoutState('chk_1')).toMatchObject({ status: 'failed', failureCode: 'payment_succeeded', reviewReason: 'claimed' });
      expect(h.checkoutEvents('chk_1').at(-1)).toMatchObject({ type: 'CheckoutReviewResolved', data: { resolution: 'payment_succeeded', status: 'failed' } });
      expect(status(h.checkoutState('chk_2'))).toBe('completed');
      expect(h.checkoutEvents('chk_2').filter((e) => e.type === 'CheckoutReviewResolved')).toEqual([]);
      expect(h.replay()).toBe(0);
    });

    it('accepted while a remainder checkout is open with nothing sent to it: the remainder fails (payment_succeeded) and takes no payment of the rest; a transfer the chain sees there afterwards is for review, not counted (0009 addendum, 2026-11-29)', () => {
      const h = withOpenRemainder();
      h.checkout('chk_1', { type: 'ClaimCheckout', txHash: HASH2, paymentSucceeded: false });
      h.payment('pmt_1', { type: 'AcceptPayment' });
      expect(status(h.paymentState('pmt_1'))).toBe('succeeded');
      expect(h.checkoutState('chk_2')).toMatchObject({ status: 'failed', failureCode: 'payment_succeeded' }); // was open: payable after success
      expect(() => h.checkout('chk_2', { type: 'MarkSent', simulate: 'exact', txHash: HASH3 })).toThrow(/failed/);
      const before = h.paymentState('pmt_1');
      h.checkout('chk_2', { type: 'DetectTransfer', txHash: HASH3, network: 'ethereum', amount: '10' });
      confirmAll(h, 'chk_2', HASH3);
      expect(status(h.checkoutState('chk_2'))).toBe('needs_review');
      expect(h.paymentState('pmt_1')).toMatchObject({ status: 'succeeded', amountReceived: (before as { amountReceived: number }).amountReceived });
      expect(types(h.paymentEvents('pmt_1')).filter((t) => t === 'PaymentTransferCountedAfterSuccess')).toEqual([]);
      expect(h.replay()).toBe(0);
    });

    it('a remainder paid short, then the payment accepted: the remainder completes with what it has (it counted), not failed with payment_succeeded; replay-safe (recheck audit M1)', () => {
      const h = withOpenRemainder();
      h.at(at(21 * MIN)).checkout('chk_2', { type: 'MarkSent', simulate: 'underpaid', txHash: HASH3 });
      confirmAll(h, 'chk_2', HASH3);
      expect(status(h.checkoutState('chk_2'))).toBe('awaiting_customer');
      h.payment('pmt_1', { type: 'AcceptPayment' });
      expect(status(h.paymentState('pmt_1'))).toBe('succeeded');
      expect(h.checkoutState('chk_2')).toMatchObject({ status: 'completed', failureCode: null });
      expect(h.checkoutEvents('chk_2').filter((e) => e.type === 'CheckoutFailed')).toEqual([]);
      expect(h.replay()).toBe(0);
    });

    it('a remainder paid in full: the remainder checkout completes; nothing else fails', () => {
      const h = withOpenRemainder();
      h.checkout('chk_2', { type: 'MarkSent', simulate: 'exact', txHash: HASH3 });
      confirmAll(h, 'chk_2', HASH3);
      expect(status(h.paymentState('pmt_1'))).toBe('succeeded');
      expect(status(h.checkoutState('chk_2'))).toBe('completed');
      expect(h.checkoutEvents('chk_2').filter((e) => e.type === 'CheckoutFailed')).toEqual([]);
    });

    it('a claim accepted: the claimed checkout completes (the accepted claim counts the quote)', () => {
      const h = started();
      h.at(at(15 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
      h.checkout('chk_1', { type: 'ClaimCheckout', txHash: HASH, paymentSucceeded: false });
      h.payment('pmt_1', { type: 'AcceptPayment' });
      expect(h.checkoutState('chk_1')).toMatchObject({ status: 'completed', reviewReason: 'claimed' });
      expect(h.replay()).toBe(0);
    });

    it('paid through another quote: the quotes still open with nothing sent to them fail (payment_succeeded); a transfer the chain sees there afterwards is for review, never a second completed counted nowhere (0009 addendum, nineteenth session; outside audit)', () => {
      const h = started(); // chk_1: 100 USDC on ethereum
      h.at(at(MIN)).checkout('chk_2', { ...openCmd('chk_2'), address: '0x' + '22'.repeat(20) }); // a second quote sets chk_1 aside by itself (still watched)
      h.checkout('chk_3', { ...openCmd('chk_3'), address: '0x' + '33'.repeat(20) }); // and a third, the quote on screen
      h.checkout('chk_1', { type: 'MarkSent', simulate: 'exact', txHash: HASH }); // the customer pays the first quote
      confirmAll(h, 'chk_1');
      const paid = h.paymentState('pmt_1') as { status: string; received: bigint; amountReceived: number };
      expect(paid.status).toBe('succeeded');
      for (const id of ['chk_2', 'chk_3']) expect(h.checkoutState(id)).toMatchObject({ status: 'failed', failureCode: 'payment_succeeded' });
      expect(h.checkoutState('chk_1')).toMatchObject({ status: 'completed' });
      expect(() => h.checkout('chk_3', { type: 'MarkSent', simulate: 'exact', txHash: HASH2 })).toThrow(/failed/);
      h.checkout('chk_3', { type: 'DetectTransfer', txHash: HASH2, network: 'ethereum', amount: '100' }); // the quote left on screen is paid too
      confirmAll(h, 'chk_3', HASH2);
      expect(status(h.checkoutState('chk_3'))).toBe('needs_review');
      expect(h.paymentState('pmt_1')).toMatchObject({ status: 'succeeded', received: paid.received, amountReceived: paid.amountReceived });
      expect(types(h.paymentEvents('pmt_1')).filter((t) => t === 'PaymentTransferCountedAfterSuccess')).toEqual([]);
      expect(h.replay()).toBe(0);
    });

    it('react: PaymentSucceeded of a payment in review → ResolveReview to each of its checkouts (counted when accepted in its coin), after an open quote nothing was sent to fails; of a payment not in review → none', () => {
      const h = started();
      h.checkout('chk_0', { ...openCmd('chk_0') });
      h.checkout('chk_1', { type: 'MarkSent', simulate: 'wrong_network', txHash: HASH });
      const payment = h.paymentState('pmt_1');
      const accepted = react({ type: 'PaymentSucceeded', data: { amount_received: 10_000, received_amount: '100', overpaid_amount: null, accepted: true, reporting: {} as never } }, { eventId: 'e1', payment });
      expect(accepted.map((r) => [r.target, r.stream, r.command])).toEqual([
        ['checkout', 'checkout-chk_0', { type: 'FailCheckout', failureCode: 'payment_succeeded' }], // open, nothing sent to it (0009 addendum, nineteenth session)
        ['checkout', 'checkout-chk_1', { type: 'RecordPaymentCovered', succeeded: true }], // a transfer reached it: it asks for no more if short (0012 addendum, 2026-11-29, paid)
        ['checkout', 'checkout-chk_1', { type: 'ResolveReview', resolution: 'payment_accepted', counted: true }],
        ['checkout', 'checkout-chk_0', { type: 'ResolveReview', resolution: 'payment_accepted', counted: true }],
      ]);
      const plain = started();
      plain.checkout('chk_1', { type: 'MarkSent', simulate: 'exact', txHash: HASH });
      expect(react({ type: 'PaymentSucceeded', data: { amount_received: 10_000, received_amount: '100', overpaid_amount: null, accepted: false, reporting: {} as never } }, { eventId: 'e2', payment: plain.paymentState('pmt_1') })).toEqual([]);
    });
  });

  it('replaying every event through react twice appends nothing (idempotence)', () => {
    const h = withOpenRemainder();
    h.checkout('chk_2', { type: 'DetectTransfer', txHash: HASH2, network: 'ethereum', amount: '6' });
    h.checkout('chk_2', { type: 'DetectTransfer', txHash: HASH3, network: 'ethereum', amount: '5' });
    confirmAll(h, 'chk_2', HASH2);
    confirmAll(h, 'chk_2', HASH3);
    expect(h.paymentEvents('pmt_1').find((e) => e.type === 'PaymentSucceeded')?.data).toMatchObject({ received_amount: '101', overpaid_amount: '1' });
    const size = h.log.length;
    expect(h.replay()).toBe(0);
    expect(h.replay()).toBe(0);
    expect(h.log.length).toBe(size);
  });

  it('replaying the cancel, expiry and claim scenarios appends nothing either', () => {
    const canceled = started();
    canceled.payment('pmt_1', { type: 'CancelPayment' });
    const expired = started();
    expired.at(at(24 * 3600_000)).payment('pmt_1', { type: 'ExpirePayment' });
    const claimed = started();
    claimed.at(at(15 * MIN)).checkout('chk_1', { type: 'ExpireCheckout' });
    claimed.checkout('chk_1', { type: 'ClaimCheckout', txHash: HASH, paymentSucceeded: false });
    for (const h of [canceled, expired, claimed]) {
      expect(h.replay()).toBe(0);
      expect(h.replay()).toBe(0);
    }
  });
});

describe('a payment paid on two quotes, through both deciders and the process manager (0025 addendum, 2026-11-29, multi-quote; outside audit K1, M1, M4, L2)', () => {
  /** chk_1 (100 USDC on ethereum) set aside by chk_2 (`second`: the quote on screen, in another coin or network). */
  function twoQuotes(second: Partial<OpenCryptoCheckout>): Harness {
    const h = started();
    h.at(at(MIN)).checkout('chk_2', { ...openCmd('chk_2'), address: '0x' + '22'.repeat(20), ...second });
    expect(h.checkoutState('chk_1')).toMatchObject({ superseded: true });
    return h;
  }

  it('K1: both paid in full before either confirms → the second checkout is in review (duplicate_payment), the first completes; accepted → both counted, the review ends completed; replay-safe', () => {
    const h = twoQuotes({ network: 'polygon' });
    h.checkout('chk_1', { type: 'MarkSent', simulate: 'exact', txHash: HASH });
    h.checkout('chk_2', { type: 'MarkSent', simulate: 'exact', txHash: HASH2 });
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'needs_review', reviewReason: 'duplicate_payment' });
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'needs_review' });
    // L2: the set-aside quote paid first is the method again without a method_selected the customer never made
    expect(timelineTypes(h)).toEqual(['created', 'method_selected', 'method_selected', 'detected', 'detected', 'needs_review']);
    confirmAll(h, 'chk_1');
    confirmAll(h, 'chk_2', HASH2);
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'completed' });
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'needs_review', reviewReason: 'duplicate_payment' });
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'needs_review', amountReceived: 0 }); // in review: counted once the business decides
    h.payment('pmt_1', { type: 'AcceptPayment' });
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'succeeded', amountReceived: 20_000 });
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'completed', reviewReason: 'duplicate_payment' });
    expect(h.replay()).toBe(0);
  });

  it('M1: 100 USDC to the set-aside quote and its whole ETH quote to the current one → accepted counts both coins at their own rates (20,000), the ETH checkout completes', () => {
    const h = twoQuotes({ asset: 'ETH', rateMinorPerCoin: 300_000 });
    h.checkout('chk_1', { type: 'MarkSent', simulate: 'exact', txHash: HASH });
    h.checkout('chk_2', { type: 'MarkSent', simulate: 'exact', txHash: HASH2 });
    confirmAll(h, 'chk_1');
    confirmAll(h, 'chk_2', HASH2);
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'needs_review', reviewReason: 'duplicate_payment', received: 33_333_333_333_333_334n });
    h.payment('pmt_1', { type: 'AcceptPayment' });
    expect(h.paymentEvents('pmt_1').at(-1)).toMatchObject({ type: 'PaymentSucceeded', data: { amount_received: 20_000, received_amount: '100', accepted: true } });
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'completed' });
    expect(h.replay()).toBe(0);
  });

  it('M4: 90 + 90 USDC to both quotes (the price is 100) → no checkout asks for more: the first completes with its 90 instead of awaiting 10, the second is in review with nothing remaining; mark-sent adds nothing', () => {
    const h = twoQuotes({ network: 'polygon' });
    h.checkout('chk_1', { type: 'MarkSent', simulate: 'underpaid', txHash: HASH });
    h.checkout('chk_2', { type: 'MarkSent', simulate: 'underpaid', txHash: HASH2 });
    for (const id of ['chk_1', 'chk_2']) expect(h.checkoutState(id)).toMatchObject({ covered: true });
    confirmAll(h, 'chk_1');
    confirmAll(h, 'chk_2', HASH2);
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'completed', received: 90_000_000n });
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'needs_review', reviewReason: 'duplicate_payment' });
    const before = h.log.length;
    h.checkout('chk_1', { type: 'MarkSent', simulate: 'exact', txHash: HASH3 });
    h.checkout('chk_2', { type: 'MarkSent', simulate: 'exact', txHash: HASH3 });
    expect(h.log.length).toBe(before);
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'needs_review' });
    h.payment('pmt_1', { type: 'AcceptPayment' });
    expect(h.paymentEvents('pmt_1').at(-1)).toMatchObject({ type: 'PaymentSucceeded', data: { amount_received: 18_000, received_amount: '180', overpaid_amount: '80' } });
    expect(h.replay()).toBe(0);
  });

  it('short on both and short in sum (60 + 30 of 100): nothing is covered, the first still awaits the rest (the business decides the review)', () => {
    const h = twoQuotes({ network: 'polygon' });
    h.checkout('chk_1', { type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '60' });
    h.checkout('chk_2', { type: 'DetectTransfer', txHash: HASH2, network: 'polygon', amount: '30' });
    confirmAll(h, 'chk_1');
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'awaiting_customer' });
    expect(h.checkoutState('chk_1')).not.toHaveProperty('covered');
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'needs_review', reviewReason: 'duplicate_payment' });
    expect(h.replay()).toBe(0);
  });
});

function timelineTypes(h: Harness): string[] {
  return timeline(h.paymentEvents('pmt_1').map((e) => ({ ...e, recorded_at: T0.toISOString() }))).map((e) => e.type);
}

describe('a late transfer that covers the price while a remainder checkout is open, through both deciders and the process manager (0025 addendum, 2026-11-29, covered late; recheck audit N4)', () => {
  /** chk_1 (100 USDC on ethereum) set aside by chk_3 (polygon), paid short (90) there and confirmed; both quotes ended; remainder chk_2 open, 20 minutes in. */
  function setAsideThenRemainder(): Harness {
    const h = started();
    h.at(at(MIN)).checkout('chk_3', { ...openCmd('chk_3'), network: 'polygon', address: '0x' + '33'.repeat(20) });
    h.checkout('chk_3', { type: 'MarkSent', simulate: 'underpaid', txHash: HASH });
    h.checkout('chk_3', { type: 'RecordConfirmations', txHash: HASH, current: 1_000 });
    h.at(at(17 * MIN));
    for (const id of ['chk_1', 'chk_3']) h.checkout(id, { type: 'ExpireCheckout' });
    h.at(at(20 * MIN)).payment('pmt_1', { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true });
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'underpaid', remainderCheckoutId: 'chk_2' });
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'open', remainder: true, network: 'polygon' });
    return h;
  }

  it('the whole first quote arrives late at the set-aside quote → the open remainder checkout stops asking (failed, payment_covered), the payment in review; a transfer to the remainder afterwards is late money; accepted → 90 + 100 counted once; replay-safe', () => {
    const h = setAsideThenRemainder();
    h.at(at(25 * MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH2, network: 'ethereum', amount: '100' });
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'needs_review', reviewReason: 'late', covered: true });
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'failed', failureCode: 'payment_covered', covered: true }); // was open, asking 10 more
    expect(h.paymentState('pmt_1')).toMatchObject({ status: 'needs_review', remainderCheckoutId: null });
    expect(() => h.payment('pmt_1', { type: 'RequestRemainder', checkoutId: 'chk_4', hasCheckoutPage: true })).toThrow(/underpaid/);
    expect(() => h.checkout('chk_2', { type: 'MarkSent', simulate: 'exact', txHash: HASH3 })).toThrow(/failed/);
    h.checkout('chk_2', { type: 'DetectTransfer', txHash: HASH3, network: 'polygon', amount: '10' });
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'needs_review', reviewReason: 'late' });
    h.checkout('chk_1', { type: 'RecordConfirmations', txHash: HASH2, current: 4 });
    h.checkout('chk_2', { type: 'RecordConfirmations', txHash: HASH3, current: 1_000 });
    h.payment('pmt_1', { type: 'AcceptPayment' });
    // acceptance counts all that arrived (0025 multi-quote), the 10 sent after the remainder stopped asking included
    expect(h.paymentEvents('pmt_1').at(-1)).toMatchObject({ type: 'PaymentSucceeded', data: { amount_received: 20_000, accepted: true } });
    expect(h.replay()).toBe(0);
  });

  it('the rest arrives late at the short quote itself → the remainder checkout stops asking as well; short in sum (5 of the 10 left) → it keeps asking', () => {
    const covered = withOpenRemainder();
    covered.at(at(25 * MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH2, network: 'ethereum', amount: '10' });
    expect(covered.checkoutState('chk_2')).toMatchObject({ status: 'failed', failureCode: 'payment_covered' });
    expect(covered.paymentState('pmt_1')).toMatchObject({ status: 'needs_review' });
    expect(covered.replay()).toBe(0);

    const short = withOpenRemainder();
    short.at(at(25 * MIN)).checkout('chk_1', { type: 'DetectTransfer', txHash: HASH2, network: 'ethereum', amount: '5' });
    expect(short.checkoutState('chk_2')).toMatchObject({ status: 'open' });
    expect(short.checkoutState('chk_2')).not.toHaveProperty('covered');
  });

  it('a remainder paid in full with no money under review: nothing is covered before, the payment succeeds on its own; once it succeeded only the short first quote is told nothing more is due (0012 addendum, 2026-11-29, paid)', () => {
    const h = withOpenRemainder();
    h.checkout('chk_2', { type: 'MarkSent', simulate: 'exact', txHash: HASH3 });
    confirmAll(h, 'chk_2', HASH3);
    expect(status(h.paymentState('pmt_1'))).toBe('succeeded');
    const succeededAt = h.log.findIndex((e) => e.stored.event.type === 'PaymentSucceeded');
    expect(h.log.slice(0, succeededAt).filter((e) => e.stored.event.type === 'CheckoutPaymentCovered')).toEqual([]);
    expect(h.log.filter((e) => e.stored.event.type === 'CheckoutPaymentCovered').map((e) => e.stored.event.data)).toEqual([{ checkout_id: 'chk_1', payment_id: 'pmt_1' }]);
    expect(h.log.some((e) => e.stored.event.type === 'CheckoutCompleted')).toBe(true);
  });
});

describe('a payment paid after its first quote was left short: no checkout asks for more, through both deciders and the process manager (0012 addendum, 2026-11-29, paid; api audit L3)', () => {
  const covered = (h: Harness, id: string) => h.checkoutEvents(id).filter((e) => e.type === 'CheckoutPaymentCovered');

  it('the remainder paid (overpaid): the expired first quote is covered, the remainder checkout (paid in full) records nothing; replay-safe', () => {
    const h = withOpenRemainder();
    h.checkout('chk_2', { type: 'MarkSent', simulate: 'overpaid', txHash: HASH3 });
    confirmAll(h, 'chk_2', HASH3);
    expect(status(h.paymentState('pmt_1'))).toBe('succeeded');
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'expired', covered: true });
    expect(covered(h, 'chk_1')).toHaveLength(1);
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'completed' });
    expect(covered(h, 'chk_2')).toEqual([]);
    expect(h.replay()).toBe(0);
  });

  it('a claim on the remainder accepted: the expired first quote is covered, the claimed remainder completes; replay-safe', () => {
    const h = withOpenRemainder();
    h.at(at(40 * MIN)).checkout('chk_2', { type: 'ExpireCheckout' });
    h.checkout('chk_2', { type: 'ClaimCheckout', txHash: HASH3, paymentSucceeded: false });
    expect(status(h.paymentState('pmt_1'))).toBe('needs_review');
    h.payment('pmt_1', { type: 'AcceptPayment' });
    expect(status(h.paymentState('pmt_1'))).toBe('succeeded');
    expect(h.checkoutState('chk_1')).toMatchObject({ status: 'expired', covered: true });
    expect(h.checkoutState('chk_2')).toMatchObject({ status: 'completed', reviewReason: 'claimed' });
    expect(h.replay()).toBe(0);
  });

  it('a plain success (from pending) sends no RecordPaymentCovered', () => {
    const h = started();
    h.checkout('chk_1', { type: 'MarkSent', simulate: 'exact', txHash: HASH });
    const payment = h.paymentState('pmt_1');
    const reactions = react({ type: 'PaymentSucceeded', data: { amount_received: 10_000, received_amount: '100', overpaid_amount: null, accepted: false, reporting: {} as never } }, { eventId: 'e3', payment });
    expect(reactions).toEqual([]);
  });
});
