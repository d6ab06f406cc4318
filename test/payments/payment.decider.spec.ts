import { PaymentCommand, PaymentDomainError, PaymentEvent, PaymentState, decidePayment, evolvePayment, initialPaymentState, timeline } from '../../libs/payments/src/domain';
import { thrownBy } from '../support/thrown';
import { T0, at, givenPayment as given } from './given-when-then';

const HASH = '0x' + 'ab'.repeat(32);
const HASH2 = '0x' + 'cd'.repeat(32);
const run = (events: PaymentEvent[], command: PaymentCommand, now = T0) => [...events, ...given(events, now).when(command).events()];

const base = (linkId: string | null = null) =>
  run(run([], { type: 'CreatePayment', paymentId: 'pmt_1', amount: 10_000, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId, expiresAt: '2025-01-02T00:00:00.000Z' }), {
    type: 'SelectMethod', checkoutId: 'chk_1', rail: 'crypto', asset: 'USDC', network: 'ethereum', rateMinorPerCoin: 100, quoteEndsAt: '2025-01-01T00:15:00.000Z',
  });
const transfer = (events: PaymentEvent[], amount: string, txHash = HASH, checkoutId = 'chk_1', review: 'wrong_network' | 'late' | null = null, now = T0) =>
  run(events, { type: 'RecordTransfer', checkoutId, txHash, network: review === 'wrong_network' ? 'polygon' : 'ethereum', amount, review }, now);
const confirmed = (events: PaymentEvent[], txHash = HASH, checkoutId = 'chk_1', now = T0) =>
  run(events, { type: 'RecordConfirmations', checkoutId, txHash, current: 4, required: 4 }, now);
const types = (events: PaymentEvent[]) => events.map((e) => e.type);
const underpaid = () => confirmed(transfer(base(), '90'), HASH, 'chk_1', at(60_000)); // sent 00:00, confirmed 00:01: quote ends 00:15 (decision 0009, addendum 2026-11-30)

describe('payment decider', () => {
  it('confirmations reach required → confirmation entries 1..4 precede succeeded', () => {
    const events = given(transfer(base(), '100')).when({ type: 'RecordConfirmations', checkoutId: 'chk_1', txHash: HASH, current: 4, required: 4 }).thenIdempotent();
    expect(types(events)).toEqual([...Array(4).fill('PaymentConfirmationRecorded'), 'PaymentSucceeded']);
    expect(events[4].data).toMatchObject({ amount_received: 10_000, reporting: { amount: 10_000, fee: 100, net: 9_900 } });
  });
  it('overpaid transfer → succeeded with overpaid_amount and the extra valued down', () => {
    const last = confirmed(transfer(base(), '110')).at(-1)!;
    expect(last).toMatchObject({ type: 'PaymentSucceeded', data: { amount_received: 11_000, overpaid_amount: '10' } });
  });
  it('short transfer confirmed → underpaid (quote live 15 minutes after it)', () => {
    expect(underpaid().at(-1)).toEqual({
      type: 'PaymentUnderpaid', data: { expected: '100', received: '90', remaining: '10', amount_received: 9_000, quote_ends_at: '2025-01-01T00:15:00.000Z' },
    });
  });
  it('request-remainder while the quote is live → remainder_unavailable carrying its end', () => {
    const caught = thrownBy(PaymentDomainError, () =>
      decidePayment({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }, underpaid().reduce(evolvePayment, initialPaymentState), { now: at(120_000) }),
    );
    expect(caught).toMatchObject({ code: 'remainder_unavailable', quoteEndsAt: '2025-01-01T00:15:00.000Z' });
  });
  it('request-remainder: no page left → remainder_unavailable; not underpaid → payment_not_underpaid', () => {
    given(underpaid(), at(20 * 60_000)).when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: false }).then('remainder_unavailable');
    given(base()).when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }).then('payment_not_underpaid');
  });
  it('request-remainder once the customer canceled the checkout holding the short quote: available at once (audit, 2026-11-28)', () => {
    const ended = run(underpaid(), { type: 'RecordCheckoutEnded', checkoutId: 'chk_1', outcome: 'canceled' }, at(120_000));
    expect(ended.at(-1)).toEqual({ type: 'PaymentCheckoutEnded', data: { checkout_id: 'chk_1', outcome: 'canceled' } });
    const requested = given(ended, at(120_000)).when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }).events();
    expect(requested).toEqual([expect.objectContaining({ type: 'PaymentRemainderRequested', data: expect.objectContaining({ checkout_id: 'chk_2', crypto_amount: '10' }) })]);
  });
  it('request-remainder while the remainder checkout took part of the rest and its quote is live → remainder_unavailable carrying its end; open with nothing on it → nothing new; its quote ended (the checkout ended) → a new remainder (audit, 2026-11-29)', () => {
    const after = at(20 * 60_000);
    const requested = run(underpaid(), { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }, after);
    given(requested, after).when({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true }).then([]);
    const topped = confirmed(transfer(requested, '7', HASH2, 'chk_2', null, after), HASH2, 'chk_2', after); // 97 of 100: quote live until 00:35
    expect(topped.at(-1)).toMatchObject({ type: 'PaymentUnderpaid', data: { remaining: '3', quote_ends_at: '2025-01-01T00:35:00.000Z' } });
    const caught = thrownBy(PaymentDomainError, () => decidePayment({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true }, topped.reduce(evolvePayment, initialPaymentState), { now: at(21 * 60_000) }));
    expect(caught).toMatchObject({ code: 'remainder_unavailable', quoteEndsAt: '2025-01-01T00:35:00.000Z' });
    const ended = run(topped, { type: 'RecordCheckoutEnded', checkoutId: 'chk_2', outcome: 'expired' }, at(35 * 60_000));
    expect(given(ended, at(35 * 60_000)).when({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true }).events()).toEqual([
      expect.objectContaining({ type: 'PaymentRemainderRequested', data: expect.objectContaining({ checkout_id: 'chk_3', crypto_amount: '3' }) }),
    ]);
  });
  it('money round-trip: underpaid 90% → remainder exactly what is left; paying it → remainder_paid then succeeded', () => {
    const after = at(20 * 60_000);
    const requested = given(underpaid(), after).when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }).thenIdempotent();
    expect(requested).toEqual([{ type: 'PaymentRemainderRequested', data: { checkout_id: 'chk_2', amount: 1_000, currency: 'USD', crypto_amount: '10', asset: 'USDC', network: 'ethereum' } }]);
    const paid = confirmed(transfer([...underpaid(), ...requested], '10', HASH2, 'chk_2'), HASH2, 'chk_2', after);
    expect(types(paid.slice(-2))).toEqual(['PaymentRemainderPaid', 'PaymentSucceeded']);
    expect(paid.at(-1)!.data).toMatchObject({ amount_received: 10_000, received_amount: '100', overpaid_amount: null });
    const tl = timeline(paid.map((e) => ({ ...e, recorded_at: T0.toISOString() }))).map((e) => e.type);
    expect(tl).toEqual(['created', 'method_selected', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'underpaid',
      'remainder_requested', 'detected', 'confirmation', 'confirmation', 'confirmation', 'confirmation', 'remainder_paid', 'succeeded']);
  });
  it('given a remainder checkout whose transfer of all that is left is confirming, when the business requests a remainder, then nothing_due (no remainder checkout is answered while the rest is on its way; outside audit K2, 2026-11-29)', () => {
    const after = at(20 * 60_000);
    const requested = run(underpaid(), { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }, after);
    const onItsWay = transfer(requested, '10', HASH2, 'chk_2');
    const refused = thrownBy(PaymentDomainError, () => decidePayment({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true }, onItsWay.reduce(evolvePayment, initialPaymentState), { now: after }));
    expect(refused).toMatchObject({ code: 'nothing_due', quoteEndsAt: null });
    expect(refused.message).toMatch(/confirming/);
    // partly confirmed: still on its way
    const partly = run(onItsWay, { type: 'RecordConfirmations', checkoutId: 'chk_2', txHash: HASH2, current: 2, required: 4 }, after);
    given(partly, after).when({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true }).then('nothing_due');
    // withdrawn by a reorganisation: nothing on its way, the open remainder checkout is answered again
    const withdrawn = run(partly, { type: 'WithdrawTransfer', checkoutId: 'chk_2', txHash: HASH2 }, after);
    given(withdrawn, after).when({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true }).then([]);
  });
  it('given a remainder checkout whose short transfer is confirming, when the business requests a remainder, then remainder_unavailable carrying the earliest end of the quote held for the rest (its end were it confirmed now; recheck audit N2), and once confirmed the end itself; given a top-up of the first quote confirming after its quote ended, then no remainder opens beside it (K2)', () => {
    const after = at(20 * 60_000);
    const requested = run(underpaid(), { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }, after);
    const short = transfer(requested, '7', HASH2, 'chk_2', null, after); // 97 of 100 once confirmed, sent at 00:20
    const refused = thrownBy(PaymentDomainError, () => decidePayment({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true }, short.reduce(evolvePayment, initialPaymentState), { now: after }));
    expect(refused).toMatchObject({ code: 'remainder_unavailable', quoteEndsAt: '2025-01-01T00:35:00.000Z' }); // 00:20 + the 15-minute quote life
    expect(refused.details).toEqual({ quote_ends_at: '2025-01-01T00:35:00.000Z' });
    expect(refused.message).toMatch(/confirming/);
    // confirmed a minute later: held until 00:35 (15 minutes after the transfer itself, decision 0009, addendum
    // 2026-11-30), and the refusal now carries that end — never earlier than the first answer
    const held = confirmed(short, HASH2, 'chk_2', at(21 * 60_000));
    expect(held.at(-1)).toMatchObject({ type: 'PaymentUnderpaid', data: { quote_ends_at: '2025-01-01T00:35:00.000Z' } });
    const later = thrownBy(PaymentDomainError, () => decidePayment({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true }, held.reduce(evolvePayment, initialPaymentState), { now: at(22 * 60_000) }));
    expect(later).toMatchObject({ code: 'remainder_unavailable', quoteEndsAt: '2025-01-01T00:35:00.000Z' });
    // a first quote held until 00:15 and topped up short at 00:10: at least until then, or 15 minutes from that transfer if later
    const early = transfer(underpaid(), '5', HASH2, 'chk_1', null, at(10 * 60_000));
    expect(thrownBy(PaymentDomainError, () => decidePayment({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }, early.reduce(evolvePayment, initialPaymentState), { now: at(10 * 60_000) }))).toMatchObject({
      code: 'remainder_unavailable',
      quoteEndsAt: '2025-01-01T00:25:00.000Z',
    });
    // the first quote (held until 00:16) topped up with all that is left, still confirming at 00:20: neither a new remainder nor the old answer
    const toppedUp = transfer(underpaid(), '10', HASH2, 'chk_1');
    given(toppedUp, after).when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }).then('nothing_due');
    given(transfer(underpaid(), '5', HASH2, 'chk_1'), after).when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }).then('remainder_unavailable');
  });
  it('nothing_due when nothing is left (defensive)', () => {
    expect(() => decidePayment({ type: 'RequestRemainder', checkoutId: 'x', hasCheckoutPage: true }, { ...(underpaid().reduce(evolvePayment, initialPaymentState) as Extract<PaymentState, { id: string }>), received: 100_000_000n, quoteEndsAt: null }, { now: T0 })).toThrow(
      expect.objectContaining({ code: 'nothing_due' }),
    );
  });
  it('claim → needs_review with claimed; repeat changes nothing; accept → succeeded counting the full quote; accept again → payment_not_acceptable (§7)', () => {
    const claim: PaymentCommand = { type: 'RecordClaim', checkoutId: 'chk_1', txHash: HASH, network: 'ethereum' };
    const claimed = run(base(), claim);
    given(base()).when(claim).thenIdempotent();
    const accepted = given(claimed).when({ type: 'AcceptPayment' }).events();
    expect(accepted[1]).toMatchObject({ type: 'PaymentSucceeded', data: { amount_received: 10_000, accepted: true } });
    given([...claimed, ...accepted]).when({ type: 'AcceptPayment' }).then('payment_not_acceptable');
    given([...claimed, ...accepted]).when(claim).then([]);
  });
  it('accept an underpaid payment → succeeded with what arrived; pending → payment_not_acceptable', () => {
    const accepted = given(underpaid()).when({ type: 'AcceptPayment' }).events();
    expect(accepted[1]).toMatchObject({ type: 'PaymentSucceeded', data: { amount_received: 9_000, received_amount: '90' } });
    given(base()).when({ type: 'AcceptPayment' }).then('payment_not_acceptable');
  });
  it('given a payment in review with a counted transfer still confirming, when accepted, then 409 payment_in_flight; once it is final the acceptance counts it (recheck audit N1/N5, 2026-11-29)', () => {
    // a wrong-network transfer puts it in review; then a full counted transfer on the quoted network, not yet final
    const review = transfer(base(), '50', HASH, 'chk_1', 'wrong_network');
    const HASH3 = '0x' + 'ef'.repeat(32);
    const confirming = transfer(review, '100', HASH3);
    given(confirming).when({ type: 'AcceptPayment' }).then('payment_in_flight');
    const final = confirmed(confirming, HASH3);
    const accepted = given(final).when({ type: 'AcceptPayment' }).events();
    expect(accepted[1]).toMatchObject({ type: 'PaymentSucceeded', data: { amount_received: 15_000, received_amount: '150', overpaid_amount: '50', accepted: true } });
  });
  it('wrong_network / late transfer → needs_review; confirmations do not succeed it', () => {
    const review = transfer(base(), '100', HASH, 'chk_1', 'wrong_network');
    expect(types(review.slice(-2))).toEqual(['PaymentTransferDetected', 'PaymentNeedsReview']);
    expect(types(confirmed(review).slice(-1))).toEqual(['PaymentConfirmationRecorded']);
  });
  it('under review, a counted transfer that brings all that is due succeeds it (§3 "any | confirmations reach required"); a short one leaves the review (audit, 2026-11-28)', () => {
    // underpaid, a remainder opened, then a claim on the first quote (needs_review), then the remainder paid in full
    const after = at(20 * 60_000);
    const requested = run(underpaid(), { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }, after);
    const claimed = run(requested, { type: 'RecordClaim', checkoutId: 'chk_1', txHash: HASH2, network: 'ethereum' }, after);
    expect(claimed.at(-1)!.type).toBe('PaymentClaimed');
    const HASH3 = '0x' + 'ef'.repeat(32);
    const paid = confirmed(transfer(claimed, '10', HASH3, 'chk_2'), HASH3, 'chk_2', after);
    expect(types(paid.slice(-2))).toEqual(['PaymentRemainderPaid', 'PaymentSucceeded']);
    expect(paid.at(-1)!.data).toMatchObject({ amount_received: 10_000, received_amount: '100', accepted: false });
    // a short counted transfer under review: no underpaid (the status stays needs_review for the business)
    const short = confirmed(transfer(claimed, '5', HASH3, 'chk_2'), HASH3, 'chk_2', after);
    expect(types(short.slice(claimed.length))).toEqual(['PaymentTransferDetected', ...Array(4).fill('PaymentConfirmationRecorded')]);
  });
  it('under review for money that arrived (a wrong-network transfer), a full counted transfer does not succeed it: the business decides (audit, 2026-11-28)', () => {
    const review = transfer(base(), '100', HASH, 'chk_1', 'wrong_network');
    const HASH3 = '0x' + 'ef'.repeat(32);
    const paid = confirmed(transfer(review, '100', HASH3), HASH3);
    expect(types(paid.slice(review.length))).toEqual(['PaymentTransferDetected', ...Array(4).fill('PaymentConfirmationRecorded')]);
    expect(paid.reduce(evolvePayment, initialPaymentState)).toMatchObject({ status: 'needs_review' });
  });
  it('accept never adds an ETH transfer to a superseded quote as USDC units (review, 2026-11-28): it counts it at its own quote\'s rate (0025 addendum, 2026-11-29, multi-quote)', () => {
    // an ETH quote, then the USDC quote that sets it aside (the method); 90 USDC arrive (underpaid), then ETH to the old quote
    const created = run([], { type: 'CreatePayment', paymentId: 'pmt_1', amount: 10_000, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId: null, expiresAt: '2025-01-02T00:00:00.000Z' });
    const eth = run(created, { type: 'SelectMethod', checkoutId: 'chk_e', rail: 'crypto', asset: 'ETH', network: 'ethereum', rateMinorPerCoin: 300_000, quoteEndsAt: '2025-01-01T00:15:00.000Z' });
    const usdc = run(eth, { type: 'SelectMethod', checkoutId: 'chk_1', rail: 'crypto', asset: 'USDC', network: 'ethereum', rateMinorPerCoin: 100, quoteEndsAt: '2025-01-01T00:15:00.000Z' });
    const short = confirmed(transfer(usdc, '90'), HASH, 'chk_1', at(60_000));
    expect(short.at(-1)!.type).toBe('PaymentUnderpaid');
    const reviewed = run(short, { type: 'RecordTransfer', checkoutId: 'chk_e', txHash: HASH2, network: 'ethereum', amount: '0.033333333333333334', review: null }, at(60_000));
    expect(reviewed.slice(short.length)).toEqual([
      expect.objectContaining({ type: 'PaymentTransferDetected', data: expect.objectContaining({ amount: '0.033333333333333334', review: 'superseded_quote' }) }),
      expect.objectContaining({ type: 'PaymentNeedsReview' }),
    ]);
    const accepted = given(reviewed, at(60_000)).when({ type: 'AcceptPayment' }).events();
    expect(accepted).toEqual([
      { type: 'PaymentAccepted', data: { counted_amount: '90' } },
      // 90 USDC worth 9,000 at the USDC quote, the ETH quote's full 0.033333333333333334 worth its total 10,000
      expect.objectContaining({ type: 'PaymentSucceeded', data: expect.objectContaining({ amount_received: 19_000, received_amount: '90', overpaid_amount: null }) }),
    ]);
  });
  it('claim on a succeeded payment → payment_paid', () => {
    given(confirmed(transfer(base(), '100'))).when({ type: 'RecordClaim', checkoutId: 'chk_1', txHash: HASH2, network: 'ethereum' }).then('payment_paid');
  });
  it('decided: cancel by the business → canceled; again → unchanged; link → payment_not_cancelable; in flight → payment_in_flight', () => {
    given(base()).when({ type: 'CancelPayment' }).thenIdempotent();
    given(base('lnk_1')).when({ type: 'CancelPayment' }).then('payment_not_cancelable');
    given(transfer(base(), '100')).when({ type: 'CancelPayment' }).then('payment_in_flight');
    given(underpaid()).when({ type: 'CancelPayment' }).then('payment_not_cancelable');
  });
  it('decided: pending → failed when the payment expires (not early, not with a transfer on its way)', () => {
    given(base(), at(24 * 3600_000)).when({ type: 'ExpirePayment' }).thenIdempotent();
    given(base(), at(60_000)).when({ type: 'ExpirePayment' }).then([]);
    given(transfer(base(), '100'), at(24 * 3600_000)).when({ type: 'ExpirePayment' }).then([]);
    const expired = run(base(), { type: 'ExpirePayment' }, at(24 * 3600_000));
    given(expired, at(24 * 3600_000)).when({ type: 'SelectMethod', checkoutId: 'chk_9', rail: 'crypto', asset: 'USDC', network: 'base', rateMinorPerCoin: 100, quoteEndsAt: 'x' }).then('payment_expired');
  });
  it("link checkout canceled → payment failed (reason canceled); an API payment stays pending", () => {
    expect(types(run(base('lnk_1'), { type: 'RecordCheckoutEnded', checkoutId: 'chk_1', outcome: 'canceled' }).slice(-2))).toEqual(['PaymentCheckoutEnded', 'PaymentFailed']);
    given(base()).when({ type: 'RecordCheckoutEnded', checkoutId: 'chk_1', outcome: 'canceled' }).thenIdempotent();
    expect(types(given(base()).when({ type: 'RecordCheckoutEnded', checkoutId: 'chk_1', outcome: 'canceled' }).events())).toEqual(['PaymentCheckoutEnded']);
  });
  it('new attempt on paid/canceled payments → payment_paid / payment_canceled', () => {
    const select: PaymentCommand = { type: 'SelectMethod', checkoutId: 'chk_3', rail: 'crypto', asset: 'USDC', network: 'base', rateMinorPerCoin: 100, quoteEndsAt: 'x' };
    given(underpaid()).when(select).then('payment_paid');
    given(run(base(), { type: 'CancelPayment' })).when(select).then('payment_canceled');
  });
  it('two transfers in flight: the payment decides on the last confirmation (no underpaid in between)', () => {
    const both = transfer(transfer(base(), '90'), '10', HASH2);
    const one = confirmed(both);
    expect(types(one.slice(both.length))).toEqual(Array(4).fill('PaymentConfirmationRecorded'));
    const two = confirmed(one, HASH2);
    expect(two.at(-1)).toMatchObject({ type: 'PaymentSucceeded', data: { received_amount: '100', overpaid_amount: null } });
    expect(types(two)).not.toContain('PaymentUnderpaid');
  });
  it('a command type it does not know throws as unhandled (an inherited property name included)', () => {
    const state = base().reduce(evolvePayment, initialPaymentState);
    expect(() => decidePayment({ type: 'RefundPayment' } as never, state, { now: T0 })).toThrow('unhandled command: "RefundPayment"');
    expect(() => decidePayment({ type: 'toString' } as never, state, { now: T0 })).toThrow('unhandled command: "toString"');
  });
});

describe('payment decider: a transfer to a checkout that completed, after the payment succeeded (0025 addendum, 2026-11-28)', () => {
  const paid = () => confirmed(transfer(base(), '100'));
  const fold = (events: PaymentEvent[]) => events.reduce(evolvePayment, initialPaymentState);

  it('given a succeeded payment, when another transfer of its coin arrives on its network, then it is recorded (detected) and the status stays succeeded', () => {
    expect(fold(paid())).toMatchObject({ status: 'succeeded' });
    const detected = given(paid()).when({ type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH2, network: 'ethereum', amount: '5', review: null }).thenIdempotent();
    expect(detected).toEqual([{ type: 'PaymentTransferDetected', data: { checkout_id: 'chk_1', tx_hash: HASH2, network: 'ethereum', amount: '5', review: null, transferred_at: T0.toISOString() } }]);
    expect(fold([...paid(), ...detected])).toMatchObject({ status: 'succeeded' });
  });

  it('once final it is counted: received and overpaid grow (PaymentTransferCountedAfterSuccess); amount_received stays; no second PaymentSucceeded', () => {
    const second = transfer(paid(), '5', HASH2);
    const final = given(second).when({ type: 'RecordConfirmations', checkoutId: 'chk_1', txHash: HASH2, current: 4, required: 4 }).thenIdempotent();
    expect(types(final)).toEqual([...Array(4).fill('PaymentConfirmationRecorded'), 'PaymentTransferCountedAfterSuccess']);
    expect(final.at(-1)).toEqual({ type: 'PaymentTransferCountedAfterSuccess', data: { checkout_id: 'chk_1', tx_hash: HASH2, amount: '5', received_amount: '105', overpaid_amount: '5' } });
    expect(fold([...second, ...final])).toMatchObject({ status: 'succeeded', received: 105_000_000n, amountReceived: 10_000 });
    // a third one adds again
    const HASH3 = '0x' + 'ef'.repeat(32);
    const third = confirmed(transfer([...second, ...final], '2.5', HASH3), HASH3);
    expect(third.at(-1)).toMatchObject({ type: 'PaymentTransferCountedAfterSuccess', data: { received_amount: '107.5', overpaid_amount: '7.5' } });
    // and the timeline shows each as any other transfer: detected, then its confirmations
    const tl = timeline(third.map((e) => ({ ...e, recorded_at: T0.toISOString() }))).map((e) => e.type);
    expect(tl.slice(tl.indexOf('succeeded'))).toEqual(['succeeded', 'detected', ...Array(4).fill('confirmation'), 'detected', ...Array(4).fill('confirmation')]);
  });

  it('withdrawn before it is final: only the record goes; once final it is never withdrawn', () => {
    const second = transfer(paid(), '5', HASH2);
    const two = run(second, { type: 'RecordConfirmations', checkoutId: 'chk_1', txHash: HASH2, current: 2, required: 4 });
    expect(given(two).when({ type: 'WithdrawTransfer', checkoutId: 'chk_1', txHash: HASH2 }).thenIdempotent()).toEqual([
      { type: 'PaymentTransferWithdrawn', data: { checkout_id: 'chk_1', tx_hash: HASH2, network: 'ethereum', amount: '5' } },
    ]);
    given(confirmed(second, HASH2)).when({ type: 'WithdrawTransfer', checkoutId: 'chk_1', txHash: HASH2 }).then([]);
  });

  it('not counted: a transfer under review (another network), money after an accepted payment (what the business accepted counts), crypto after a card paid it', () => {
    const wrong = run(paid(), { type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH2, network: 'polygon', amount: '5', review: 'wrong_network' });
    expect(types(confirmed(wrong, HASH2).slice(wrong.length))).toEqual(Array(4).fill('PaymentConfirmationRecorded'));
    const accepted = run(underpaid(), { type: 'AcceptPayment' });
    const topUp = transfer(accepted, '10', HASH2);
    expect(types(confirmed(topUp, HASH2).slice(topUp.length))).toEqual(Array(4).fill('PaymentConfirmationRecorded'));
    const card = run(run(base(), { type: 'SelectCardMethod', checkoutId: 'chk_c', quotedMinor: 10_100, country: 'US' }), {
      type: 'RecordCardPayment', checkoutId: 'chk_c', attemptId: 'att_1', processor: 'simulated_a', brand: 'visa', last4: '4242', amountMinor: 10_100, review: null,
    });
    expect(fold(card)).toMatchObject({ status: 'succeeded', rail: 'card' });
    const crypto = transfer(card, '100', HASH2);
    expect(types(confirmed(crypto, HASH2).slice(crypto.length))).toEqual(Array(4).fill('PaymentConfirmationRecorded'));
  });
});

describe('payment decider: money to a checkout in review, or on another network after success (0025 addendum, 2026-11-28, second)', () => {
  const HASH3 = '0x' + 'ef'.repeat(32);
  const fold = (events: PaymentEvent[]) => events.reduce(evolvePayment, initialPaymentState);
  const claim: PaymentCommand = { type: 'RecordClaim', checkoutId: 'chk_1', txHash: HASH, network: 'ethereum' };
  const claimed = () => run(run(base(), { type: 'RecordCheckoutEnded', checkoutId: 'chk_1', outcome: 'expired' }, at(15 * 60_000)), claim, at(16 * 60_000));

  it('given a payment in review, when another transfer under review arrives (another network to the same checkout), then it is listed without a second PaymentNeedsReview', () => {
    const review = transfer(base(), '100', HASH, 'chk_1', 'wrong_network');
    const again = given(review).when({ type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH2, network: 'polygon', amount: '3', review: 'wrong_network' }).thenIdempotent();
    expect(again).toEqual([{ type: 'PaymentTransferDetected', data: { checkout_id: 'chk_1', tx_hash: HASH2, network: 'polygon', amount: '3', review: 'wrong_network', transferred_at: T0.toISOString() } }]);
    // a claimed payment too: the business reviews it once, every transfer listed with its reason
    expect(types(given(claimed()).when({ type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH2, network: 'polygon', amount: '100', review: 'wrong_network' }).events())).toEqual(['PaymentTransferDetected']);
    // accepting counts what arrived, both transfers (what arrived on any network counts)
    const accepted = given([...review, ...again]).when({ type: 'AcceptPayment' }).events();
    expect(accepted[0]).toEqual({ type: 'PaymentAccepted', data: { counted_amount: '103' } });
  });

  it('given a payment in review for a wrong-network transfer, when the quoted amount arrives on the quoted network (no review), then it is listed and confirmed, and the payment stays in review for the business', () => {
    const review = transfer(base(), '100', HASH, 'chk_1', 'wrong_network');
    const paid = confirmed(transfer(review, '100', HASH2), HASH2);
    expect(types(paid.slice(review.length))).toEqual(['PaymentTransferDetected', ...Array(4).fill('PaymentConfirmationRecorded')]);
    expect(fold(paid)).toMatchObject({ status: 'needs_review', received: 100_000_000n });
  });

  it('given a claimed payment, when all that is due arrives at the claimed checkout and is final, then it succeeds (not accepted); a short one leaves the review', () => {
    const paid = confirmed(transfer(claimed(), '100', HASH2), HASH2, 'chk_1', at(20 * 60_000));
    expect(types(paid.slice(claimed().length))).toEqual(['PaymentTransferDetected', ...Array(4).fill('PaymentConfirmationRecorded'), 'PaymentSucceeded']);
    expect(paid.at(-1)!.data).toMatchObject({ amount_received: 10_000, received_amount: '100', overpaid_amount: null, accepted: false });
    const short = confirmed(transfer(claimed(), '40', HASH2), HASH2, 'chk_1', at(20 * 60_000));
    expect(types(short.slice(claimed().length))).toEqual(['PaymentTransferDetected', ...Array(4).fill('PaymentConfirmationRecorded')]);
    expect(fold(short)).toMatchObject({ status: 'needs_review', received: 40_000_000n });
    // the rest then succeeds it
    expect(confirmed(transfer(short, '60', HASH3), HASH3, 'chk_1', at(21 * 60_000)).at(-1)).toMatchObject({ type: 'PaymentSucceeded', data: { received_amount: '100', accepted: false } });
  });

  it('given a succeeded payment, when a transfer on another network arrives at its completed checkout, then it is listed (wrong_network), the payment stays succeeded and never counts it', () => {
    const paid = confirmed(transfer(base(), '100'));
    const wrong = given(paid).when({ type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH2, network: 'polygon', amount: '5', review: 'wrong_network' }).thenIdempotent();
    expect(wrong).toEqual([{ type: 'PaymentTransferDetected', data: { checkout_id: 'chk_1', tx_hash: HASH2, network: 'polygon', amount: '5', review: 'wrong_network', transferred_at: T0.toISOString() } }]);
    const final = confirmed([...paid, ...wrong], HASH2);
    expect(types(final.slice(paid.length + 1))).toEqual(Array(4).fill('PaymentConfirmationRecorded'));
    expect(fold(final)).toMatchObject({ status: 'succeeded', received: 100_000_000n });
  });
});

describe('payment decider: one transaction paying two checkouts of the payment (0025 addendum, 2026-11-28, third)', () => {
  // A batched exchange withdrawal naming both addresses: each checkout credits its own output, under
  // the same transaction hash. The payment knows a transfer by (checkout, hash).
  const HASH3 = '0x' + 'ef'.repeat(32);
  const fold = (events: PaymentEvent[]) => events.reduce(evolvePayment, initialPaymentState) as Extract<PaymentState, { id: string }>;
  const after = at(20 * 60_000);
  // underpaid at 90 on chk_1, a remainder chk_2 for 10, then a claim on chk_1 (its quote ended): chk_1 in review for a claim alone
  const claimedWithRemainder = () =>
    run(run(underpaid(), { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }, after), { type: 'RecordClaim', checkoutId: 'chk_1', txHash: HASH2, network: 'ethereum' }, after);
  const record = (events: PaymentEvent[], checkoutId: string, amount: string, review: 'late' | null = null): PaymentEvent[] =>
    run(events, { type: 'RecordTransfer', checkoutId, txHash: HASH3, network: 'ethereum', amount, review }, after);
  const confirm = (events: PaymentEvent[], checkoutId: string, current = 4): PaymentEvent[] =>
    run(events, { type: 'RecordConfirmations', checkoutId, txHash: HASH3, current, required: 4 }, after);

  it('given a payment with two checkouts, when one hash pays both, then both are recorded, each from its own checkout; a repeated report of either adds nothing', () => {
    const given1 = record(claimedWithRemainder(), 'chk_1', '4');
    const second = given(given1, after).when({ type: 'RecordTransfer', checkoutId: 'chk_2', txHash: HASH3, network: 'ethereum', amount: '6', review: null }).thenIdempotent();
    expect(second).toEqual([{ type: 'PaymentTransferDetected', data: { checkout_id: 'chk_2', tx_hash: HASH3, network: 'ethereum', amount: '6', review: null, transferred_at: '2025-01-01T00:20:00.000Z' } }]);
    const both = [...given1, ...second];
    given(both, after).when({ type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH3, network: 'ethereum', amount: '4', review: null }).then([]);
    expect(Object.values(fold(both).transfers).filter((t) => t.txHash === HASH3).map((t) => [t.checkoutId, t.amount])).toEqual([['chk_1', 4_000_000n], ['chk_2', 6_000_000n]]);
  });

  it('given both recorded, when each checkout confirms its output, then the confirmations are recorded separately and the payment succeeds on the sum (both counted)', () => {
    const both = record(record(claimedWithRemainder(), 'chk_1', '4'), 'chk_2', '6');
    // chk_1's output final first: chk_2's, on the same hash, is still confirming and decides
    const first = given(both, after).when({ type: 'RecordConfirmations', checkoutId: 'chk_1', txHash: HASH3, current: 4, required: 4 }).thenIdempotent();
    expect(first).toEqual([1, 2, 3, 4].map((n) => ({ type: 'PaymentConfirmationRecorded', data: { checkout_id: 'chk_1', tx_hash: HASH3, current: n, required: 4 } })));
    expect(fold([...both, ...first])).toMatchObject({ status: 'needs_review', received: 94_000_000n });
    const second = given([...both, ...first], after).when({ type: 'RecordConfirmations', checkoutId: 'chk_2', txHash: HASH3, current: 4, required: 4 }).thenIdempotent();
    expect(second.slice(0, 4)).toEqual([1, 2, 3, 4].map((n) => ({ type: 'PaymentConfirmationRecorded', data: { checkout_id: 'chk_2', tx_hash: HASH3, current: n, required: 4 } })));
    expect(types(second.slice(4))).toEqual(['PaymentRemainderPaid', 'PaymentSucceeded']);
    expect(second.at(-1)!.data).toMatchObject({ amount_received: 10_000, received_amount: '100', overpaid_amount: null, accepted: false });
    expect(fold([...both, ...first, ...second])).toMatchObject({ status: 'succeeded', received: 100_000_000n });
  });

  it('given both recorded and partly confirmed, when the chain withdraws the transaction, then each checkout withdraws its own output and the other stays until its own withdrawal', () => {
    const both = confirm(confirm(record(record(claimedWithRemainder(), 'chk_1', '4'), 'chk_2', '6'), 'chk_1', 2), 'chk_2', 1);
    const one = given(both, after).when({ type: 'WithdrawTransfer', checkoutId: 'chk_2', txHash: HASH3 }).thenIdempotent();
    expect(one).toEqual([{ type: 'PaymentTransferWithdrawn', data: { checkout_id: 'chk_2', tx_hash: HASH3, network: 'ethereum', amount: '6' } }]);
    const left = fold([...both, ...one]);
    expect(Object.values(left.transfers).filter((t) => t.txHash === HASH3).map((t) => [t.checkoutId, t.amount, t.current])).toEqual([['chk_1', 4_000_000n, 2]]);
    // chk_1's output still confirms (and, all that is due not there, leaves the review to the business)
    expect(types(confirm([...both, ...one], 'chk_1').slice(both.length + 1))).toEqual(['PaymentConfirmationRecorded', 'PaymentConfirmationRecorded']);
    const other = given([...both, ...one], after).when({ type: 'WithdrawTransfer', checkoutId: 'chk_1', txHash: HASH3 }).thenIdempotent();
    expect(other).toEqual([{ type: 'PaymentTransferWithdrawn', data: { checkout_id: 'chk_1', tx_hash: HASH3, network: 'ethereum', amount: '4' } }]);
    expect(Object.values(fold([...both, ...one, ...other]).transfers).filter((t) => t.txHash === HASH3)).toEqual([]);
  });

  it('a superseded quote and the current one paid by one transaction: as two transactions would be — the first becomes the method, the second is for review (superseded_quote); accepting counts both', () => {
    const two = run(base(), { type: 'SelectMethod', checkoutId: 'chk_2', rail: 'crypto', asset: 'USDC', network: 'ethereum', rateMinorPerCoin: 100, quoteEndsAt: '2025-01-01T00:15:00.000Z' });
    const paid = run(run(two, { type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH3, network: 'ethereum', amount: '60', review: null }), { type: 'RecordTransfer', checkoutId: 'chk_2', txHash: HASH3, network: 'ethereum', amount: '40', review: null });
    expect(types(paid.slice(two.length))).toEqual(['PaymentMethodSelected', 'PaymentTransferDetected', 'PaymentTransferDetected', 'PaymentNeedsReview']);
    expect(paid.filter((e) => e.type === 'PaymentTransferDetected').map((e) => e.data)).toEqual([
      { checkout_id: 'chk_1', tx_hash: HASH3, network: 'ethereum', amount: '60', review: null, transferred_at: T0.toISOString() },
      { checkout_id: 'chk_2', tx_hash: HASH3, network: 'ethereum', amount: '40', review: 'superseded_quote', transferred_at: T0.toISOString() },
    ]);
    const final = run(run(paid, { type: 'RecordConfirmations', checkoutId: 'chk_1', txHash: HASH3, current: 4, required: 4 }), { type: 'RecordConfirmations', checkoutId: 'chk_2', txHash: HASH3, current: 4, required: 4 });
    expect(fold(final)).toMatchObject({ status: 'needs_review', received: 60_000_000n });
    const accepted = given(final).when({ type: 'AcceptPayment' }).events();
    expect(accepted).toEqual([
      { type: 'PaymentAccepted', data: { counted_amount: '100' } },
      expect.objectContaining({ type: 'PaymentSucceeded', data: expect.objectContaining({ amount_received: 10_000, received_amount: '100', overpaid_amount: null, accepted: true }) }),
    ]);
  });

  it('after success, one transaction paying two completed checkouts: each output counted once final', () => {
    const after0 = at(20 * 60_000);
    const requested = run(underpaid(), { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }, after0);
    const paid = confirmed(transfer(requested, '10', HASH2, 'chk_2'), HASH2, 'chk_2', after0);
    expect(fold(paid)).toMatchObject({ status: 'succeeded', received: 100_000_000n });
    const more = confirm(confirm(record(record(paid, 'chk_1', '1'), 'chk_2', '2'), 'chk_1'), 'chk_2');
    expect(more.filter((e) => e.type === 'PaymentTransferCountedAfterSuccess').map((e) => e.data)).toEqual([
      { checkout_id: 'chk_1', tx_hash: HASH3, amount: '1', received_amount: '101', overpaid_amount: '1' },
      { checkout_id: 'chk_2', tx_hash: HASH3, amount: '2', received_amount: '103', overpaid_amount: '3' },
    ]);
    expect(fold(more)).toMatchObject({ status: 'succeeded', received: 103_000_000n });
  });

  it('streams stored before: a confirmation of an output the payment never recorded (another checkout held its hash) is nothing to record, not an error', () => {
    // the old key took chk_2's output for chk_1's and recorded nothing: its confirmations now find no (chk_2, hash)
    const old = confirm(record(claimedWithRemainder(), 'chk_1', '4'), 'chk_1');
    given(old, after).when({ type: 'RecordConfirmations', checkoutId: 'chk_2', txHash: HASH3, current: 4, required: 4 }).then([]);
    // a hash no checkout of the payment had stays an error
    expect(() => decidePayment({ type: 'RecordConfirmations', checkoutId: 'chk_2', txHash: '0x' + '99'.repeat(32), current: 1, required: 4 }, fold(old), { now: after })).toThrow('no transfer');
  });
});

describe('payment decider: a transaction seen in the mempool holds the payment expiry (0023 addendum, 2026-11-29)', () => {
  const EXPIRY = at(24 * 3600_000); // base(): expires 2025-01-02
  const sighted = (sightedAt = at(24 * 3600_000 - 60_000)) => run(base(), { type: 'RecordSighting', checkoutId: 'chk_1', txHash: HASH, sightedAt: sightedAt.toISOString() });

  it('sighted → recorded once, no timeline entry; the expiry timer then changes nothing', () => {
    const events = given(base()).when({ type: 'RecordSighting', checkoutId: 'chk_1', txHash: HASH, sightedAt: at(60_000).toISOString() }).thenIdempotent();
    expect(events).toEqual([{ type: 'PaymentTransferSighted', data: { checkout_id: 'chk_1', tx_hash: HASH, sighted_at: at(60_000).toISOString() } }]);
    expect(timeline(sighted().map((e) => ({ ...e, recorded_at: T0.toISOString() }))).map((e) => e.type)).toEqual(['created', 'method_selected']);
    given(sighted(), EXPIRY).when({ type: 'ExpirePayment' }).then([]);
  });

  it('mined after the expiry → counted and succeeded, not expired', () => {
    const mined = transfer(sighted(), '100');
    given(mined, at(25 * 3600_000)).when({ type: 'ExpirePayment' }).then([]);
    expect(confirmed(mined, HASH, 'chk_1', at(25 * 3600_000)).at(-1)).toMatchObject({ type: 'PaymentSucceeded' });
  });

  it('dropped → the hold ends and the expiry applies', () => {
    const dropped = given(sighted(), at(25 * 3600_000)).when({ type: 'DropSighting', checkoutId: 'chk_1', txHash: HASH }).thenIdempotent();
    expect(dropped).toEqual([{ type: 'PaymentSightingDropped', data: { checkout_id: 'chk_1', tx_hash: HASH } }]);
    expect(types(given([...sighted(), ...dropped], at(25 * 3600_000)).when({ type: 'ExpirePayment' }).events())).toEqual(['PaymentExpired']);
  });

  it('the hold ends with its checkout, or a day after the sighting', () => {
    const ended = run(sighted(), { type: 'RecordCheckoutEnded', checkoutId: 'chk_1', outcome: 'expired' });
    expect(types(given(ended, EXPIRY).when({ type: 'ExpirePayment' }).events())).toEqual(['PaymentExpired']);
    expect(types(given(sighted(at(60_000)), at(24 * 3600_000 + 60_000)).when({ type: 'ExpirePayment' }).events())).toEqual(['PaymentExpired']);
  });
});

describe('payment decider: a payment paid on two quotes (0025 addendum, 2026-11-29, multi-quote; outside audit K1, M1, L2)', () => {
  // $15: a USDC quote (chk_1) set aside by an ETH quote at $3,000 (chk_2, the method), both paid in full
  const quotes = () => {
    const created = run([], { type: 'CreatePayment', paymentId: 'pmt_1', amount: 1_500, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId: null, expiresAt: '2025-01-02T00:00:00.000Z' });
    const usdc = run(created, { type: 'SelectMethod', checkoutId: 'chk_1', rail: 'crypto', asset: 'USDC', network: 'ethereum', rateMinorPerCoin: 100, quoteEndsAt: '2025-01-01T00:15:00.000Z' });
    return run(usdc, { type: 'SelectMethod', checkoutId: 'chk_2', rail: 'crypto', asset: 'ETH', network: 'ethereum', rateMinorPerCoin: 300_000, quoteEndsAt: '2025-01-01T00:15:00.000Z' });
  };
  const paidBoth = () => {
    const first = run(quotes(), { type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH, network: 'ethereum', amount: '15', review: null });
    const second = run(first, { type: 'RecordTransfer', checkoutId: 'chk_2', txHash: HASH2, network: 'ethereum', amount: '0.005', review: null });
    return confirmed(confirmed(second, HASH, 'chk_1'), HASH2, 'chk_2');
  };

  it('given a superseded quote paid first, when RecordTransfer, then it is the method again as the payment\'s doing (reinstated): no method_selected entry the customer never made (L2)', () => {
    const events = given(quotes()).when({ type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH, network: 'ethereum', amount: '15', review: null }).thenIdempotent();
    expect(events[0]).toMatchObject({ type: 'PaymentMethodSelected', data: { checkout_id: 'chk_1', asset: 'USDC', reinstated: true } });
    const entries = timeline([...quotes(), ...events].map((e) => ({ ...e, recorded_at: T0.toISOString() })));
    expect(entries.map((e) => e.type)).toEqual(['created', 'method_selected', 'method_selected', 'detected']);
  });
  it('given both quotes paid in full in two coins, then the second is in review (superseded_quote) and not succeeded; when AcceptPayment, then both count, each coin at its own quote\'s rate (M1)', () => {
    const both = paidBoth();
    expect(both.filter((e) => e.type === 'PaymentTransferDetected').map((e) => e.data.review)).toEqual([null, 'superseded_quote']);
    expect(both.reduce(evolvePayment, initialPaymentState)).toMatchObject({ status: 'needs_review', amountReceived: 0 });
    const accepted = given(both).when({ type: 'AcceptPayment' }).events();
    expect(accepted).toEqual([
      { type: 'PaymentAccepted', data: { counted_amount: '15' } },
      // 15 USDC = the USDC quote's total 1,500; 0.005 ETH = the ETH quote's total 1,500
      expect.objectContaining({ type: 'PaymentSucceeded', data: expect.objectContaining({ amount_received: 3_000, received_amount: '15', overpaid_amount: null, accepted: true, reporting: expect.objectContaining({ amount: 3_000, fee: 30, net: 2_970 }) }) }),
    ]);
  });
  it('given both quotes paid in the same coin at different rates, when AcceptPayment, then each quote is valued at its own rate; the coin strings sum the units', () => {
    const created = run([], { type: 'CreatePayment', paymentId: 'pmt_1', amount: 1_500, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId: null, expiresAt: '2025-01-02T00:00:00.000Z' });
    const a = run(created, { type: 'SelectMethod', checkoutId: 'chk_1', rail: 'crypto', asset: 'ETH', network: 'ethereum', rateMinorPerCoin: 300_000, quoteEndsAt: '2025-01-01T00:15:00.000Z' });
    const b = run(a, { type: 'SelectMethod', checkoutId: 'chk_2', rail: 'crypto', asset: 'ETH', network: 'base', rateMinorPerCoin: 250_000, quoteEndsAt: '2025-01-01T00:15:00.000Z' });
    const first = run(b, { type: 'RecordTransfer', checkoutId: 'chk_2', txHash: HASH, network: 'base', amount: '0.006', review: null });
    const second = run(first, { type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH2, network: 'ethereum', amount: '0.001', review: null });
    const accepted = given(confirmed(second, HASH, 'chk_2')).when({ type: 'AcceptPayment' }).events();
    // chk_2 (the method): 0.006 ETH, its whole quote → 1,500; chk_1: 0.001 ETH short of its 0.005 → floor(0.001 × 3,000.00) = 300
    expect(accepted.at(-1)).toMatchObject({ type: 'PaymentSucceeded', data: { amount_received: 1_800, received_amount: '0.007', overpaid_amount: '0.001' } });
  });
});

describe('payment decider: the remainder wait runs from the short transfer itself (decision 0009, addendum 2026-11-30)', () => {
  const m = (minutes: number, seconds = 0) => at(minutes * 60_000 + seconds * 1000);
  const short = (transferredAt?: string) => run(base(), { type: 'RecordTransfer', checkoutId: 'chk_1', txHash: HASH, network: 'ethereum', amount: '90', review: null, ...(transferredAt ? { transferredAt } : {}) }, m(5));
  it('given a short transfer the checkout saw at 00:05, when it is confirmed seconds later, then underpaid with the quote ending at 00:20; request-remainder at 00:20 opens the remainder', () => {
    const transferred = short(m(5).toISOString());
    expect(transferred.at(-1)).toMatchObject({ type: 'PaymentTransferDetected', data: { transferred_at: m(5).toISOString() } });
    const paid = confirmed(transferred, HASH, 'chk_1', m(5, 6));
    expect(paid.at(-1)).toMatchObject({ type: 'PaymentUnderpaid', data: { quote_ends_at: m(20).toISOString() } });
    given(paid, m(19, 59)).when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }).then('remainder_unavailable');
    expect(types(given(paid, m(20)).when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }).events())).toEqual(['PaymentRemainderRequested']);
  });
  it('the transfer time is the one the checkout records (a block time before it was read), else when the payment records it', () => {
    expect(confirmed(short(m(4).toISOString()), HASH, 'chk_1', m(5, 6)).at(-1)).toMatchObject({ data: { quote_ends_at: m(19).toISOString() } });
    expect(short().at(-1)).toMatchObject({ data: { transferred_at: m(5).toISOString() } });
  });
  it('given a short transfer at 00:05 confirmed only at 00:25, then underpaid with a quote that ended at 00:20, and request-remainder at once opens the remainder', () => {
    const paid = confirmed(short(m(5).toISOString()), HASH, 'chk_1', m(25));
    expect(paid.at(-1)).toMatchObject({ type: 'PaymentUnderpaid', data: { quote_ends_at: m(20).toISOString() } });
    expect(types(given(paid, m(25)).when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }).events())).toEqual(['PaymentRemainderRequested']);
  });
  it('while a short transfer confirms past its wait, remainder_unavailable carries now (it ends once confirmed), never a time already past', () => {
    const onItsWay = short(m(5).toISOString());
    const firstPaid = confirmed(onItsWay, HASH, 'chk_1', m(5, 6));
    const requested = run(firstPaid, { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }, m(21));
    const second = run(requested, { type: 'RecordTransfer', checkoutId: 'chk_2', txHash: HASH2, network: 'ethereum', amount: '5', review: null, transferredAt: m(22).toISOString() }, m(22));
    expect(thrownBy(PaymentDomainError, () => decidePayment({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true }, second.reduce(evolvePayment, initialPaymentState), { now: m(30) }))).toMatchObject({ quoteEndsAt: m(37).toISOString() });
    expect(thrownBy(PaymentDomainError, () => decidePayment({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true }, second.reduce(evolvePayment, initialPaymentState), { now: m(40) }))).toMatchObject({ quoteEndsAt: m(40).toISOString() });
    // the second short transfer, on the remainder checkout, follows the same rule: 15 minutes after it (00:37)
    expect(confirmed(second, HASH2, 'chk_2', m(22, 6)).at(-1)).toMatchObject({ type: 'PaymentUnderpaid', data: { quote_ends_at: m(37).toISOString() } });
  });
});
