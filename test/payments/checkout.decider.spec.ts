import { CheckoutEvent, CheckoutCommand, decideCheckout, evolveCheckout, initialCheckoutState, quoteEnded } from '../../libs/payments/src/domain';
import { timersForCheckoutEvent } from '../../libs/payments/src/app/payment-timers';
import { T0, at, givenCheckout as given } from './given-when-then';

const HASH = '0x' + 'ab'.repeat(32);
const HASH2 = '0x' + 'cd'.repeat(32);

const openCmd: CheckoutCommand = {
  type: 'OpenCheckout', checkoutId: 'chk_1', paymentId: 'pmt_1', linkId: null, rail: 'crypto', simulated: true,
  asset: 'USDC', network: 'ethereum', address: '0x' + '11'.repeat(20), rateMinorPerCoin: 100, currency: 'USD',
  priceMinor: 10_000, feePayer: 'business', feeRateBps: 100, remainder: null, quoteTtlMs: 15 * 60_000,
};
const opened = decideCheckout(openCmd, initialCheckoutState, { now: T0 });
const sent = (simulate: 'exact' | 'underpaid' | 'overpaid' | 'wrong_network' | 'late', now = T0) =>
  given(opened, now).when({ type: 'MarkSent', simulate, txHash: HASH }).events();
const types = (events: CheckoutEvent[]) => events.map((e) => e.type);

describe('checkout decider (§3 rows)', () => {
  it('opens a crypto quote: 100.00 USD at $1 → 100 USDC, ethereum needs 4 confirmations', () => {
    expect(opened[0]).toMatchObject({ type: 'CheckoutOpened', data: { amount: '100', expires_at: '2025-01-01T00:15:00.000Z', confirmations_required: 4, remainder: false } });
  });
  it('refuses an asset the network does not carry', () => {
    given([]).when({ ...openCmd, asset: 'ETH', network: 'polygon' }).then('asset_unavailable');
  });
  it('open → cancel → canceled by the customer', () => {
    given(opened).when({ type: 'CancelCheckout' }).then([
      { type: 'CheckoutCanceled', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', link_id: null, remainder: false, canceled_by: 'customer' } },
    ]);
  });
  it('canceled → cancel again → unchanged (no events)', () => {
    given([...opened, ...given(opened).when({ type: 'CancelCheckout' }).events()]).when({ type: 'CancelCheckout' }).then([]);
  });
  it('confirming → cancel → checkout_not_cancelable', () => {
    given([...opened, ...sent('exact')]).when({ type: 'CancelCheckout' }).then('checkout_not_cancelable');
  });
  it('supersede: same status, repeating changes nothing', () => {
    given(opened).when({ type: 'SupersedeCheckout', by: 'customer' }).thenIdempotent();
    given(opened).when({ type: 'SupersedeCheckout', by: 'customer' }).then([{ type: 'CheckoutSuperseded', data: { checkout_id: 'chk_1' } }]);
  });
  it('superseded, then expired → supersede → checkout_not_supersedable (a repeat is a no-op only while it could be replaced)', () => {
    const superseded = [...opened, ...given(opened).when({ type: 'SupersedeCheckout', by: 'customer' }).events()];
    const expired = [...superseded, ...given(superseded, at(15 * 60_000)).when({ type: 'ExpireCheckout' }).events()];
    given(expired, at(16 * 60_000)).when({ type: 'SupersedeCheckout', by: 'customer' }).then('checkout_not_supersedable');
    // the payment setting its earlier quotes aside (a retried reaction) has nothing to do on an ended one
    given(expired, at(16 * 60_000)).when({ type: 'SupersedeCheckout', by: 'payment' }).then([]);
    given(opened).when({ type: 'SupersedeCheckout', by: 'payment' }).then([{ type: 'CheckoutSuperseded', data: { checkout_id: 'chk_1' } }]);
  });
  it('supersede a remainder checkout → checkout_not_supersedable', () => {
    const rem = decideCheckout({ ...openCmd, remainder: { amount: '10', priceMinor: 1000 } }, initialCheckoutState, { now: T0 });
    given(rem).when({ type: 'SupersedeCheckout', by: 'customer' }).then('checkout_not_supersedable');
  });
  it('expired → claim → needs_review (claimed); same claim again changes nothing; another → already_claimed', () => {
    const expired = [...opened, ...given(opened, at(15 * 60_000)).when({ type: 'ExpireCheckout' }).events()];
    const claimed = given(expired).when({ type: 'ClaimCheckout', txHash: HASH.toUpperCase().replace('0X', '0x'), paymentSucceeded: false }).thenIdempotent();
    expect(claimed).toEqual([{ type: 'CheckoutClaimed', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH, network: 'ethereum', email: null } }]);
    given([...expired, ...claimed]).when({ type: 'ClaimCheckout', txHash: HASH2, paymentSucceeded: false }).then('already_claimed');
  });
  it('claim: open → checkout_not_claimable; bad hash → invalid_tx_hash; payment succeeded → payment_paid', () => {
    given(opened).when({ type: 'ClaimCheckout', txHash: HASH, paymentSucceeded: false }).then('checkout_not_claimable');
    given(opened).when({ type: 'ClaimCheckout', txHash: 'nope', paymentSucceeded: false }).then('invalid_tx_hash');
    const canceled = [...opened, ...given(opened).when({ type: 'CancelCheckout' }).events()];
    given(canceled).when({ type: 'ClaimCheckout', txHash: HASH, paymentSucceeded: true }).then('payment_paid');
  });
  it('mark-sent exact → confirming with the whole quote', () => {
    expect(sent('exact')).toEqual([
      { type: 'CheckoutTransferDetected', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH, network: 'ethereum', amount: '100', received_amount: '100', remaining_amount: null, overpaid_amount: null, simulated: true, detected_at: T0.toISOString() } },
    ]);
  });
  it('mark-sent underpaid (90%) and overpaid (110%)', () => {
    expect(sent('underpaid')[0].data).toMatchObject({ amount: '90', remaining_amount: '10' });
    expect(sent('overpaid')[0].data).toMatchObject({ amount: '110', overpaid_amount: '10' });
  });
  it('mark-sent wrong_network → needs_review on another EVM network', () => {
    const events = sent('wrong_network');
    expect(types(events)).toEqual(['CheckoutTransferDetected', 'CheckoutNeedsReview']);
    expect(events[0].data).toMatchObject({ network: 'polygon' });
  });
  it('mark-sent late → ends the quote first, then needs_review', () => {
    expect(types(sent('late'))).toEqual(['CheckoutExpired', 'CheckoutTransferDetected', 'CheckoutNeedsReview']);
  });
  it('mark-sent late ends the quote (expires_at = now, not ahead) and leaves the checkout needs_review, not expired; a claim is refused', () => {
    const now = at(60_000);
    const events = given(opened, now).when({ type: 'MarkSent', simulate: 'late', txHash: HASH }).thenIdempotent();
    expect(events[0]).toEqual({ type: 'CheckoutExpired', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', received_amount: '0', expires_at: now.toISOString() } });
    const state = [...opened, ...events].reduce(evolveCheckout, initialCheckoutState);
    if (state.status === 'none' || state.rail !== 'crypto') throw new Error('no crypto checkout');
    expect(state.status).toBe('needs_review');
    expect(state.reviewReason).toBe('late');
    expect(Date.parse(state.expiresAt)).toBeLessThanOrEqual(now.getTime());
    expect(quoteEnded(state, now)).toBe(true);
    given([...opened, ...events], now).when({ type: 'ClaimCheckout', txHash: HASH2, paymentSucceeded: false }).then('checkout_not_claimable');
  });
  it('mark-sent late on a quote already past its end keeps that end', () => {
    const events = given(opened, at(16 * 60_000)).when({ type: 'MarkSent', simulate: 'late', txHash: HASH }).events();
    expect(events[0]).toEqual({ type: 'CheckoutExpired', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', received_amount: '0' } });
    const state = [...opened, ...events].reduce(evolveCheckout, initialCheckoutState);
    expect(state).toMatchObject({ status: 'needs_review', expiresAt: '2025-01-01T00:15:00.000Z' });
  });
  it('mark-sent on confirming, completed, needs_review → unchanged', () => {
    const confirming = [...opened, ...sent('exact')];
    given(confirming).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH2 }).then([]);
    const completed = [...confirming, ...given(confirming).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events()];
    given(completed).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH2 }).then([]);
    given([...opened, ...sent('wrong_network')]).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH2 }).then([]);
  });
  it('mark-sent after the quote ended (not late) → checkout_expired; canceled → checkout_canceled', () => {
    given(opened, at(16 * 60_000)).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH }).then('checkout_expired');
    given([...opened, ...given(opened).when({ type: 'CancelCheckout' }).events()]).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH }).then('checkout_canceled');
  });
  it('confirmations reach required → confirmation entries rising, then completed (confirming → completed)', () => {
    const confirming = [...opened, ...sent('exact')];
    const events = given(confirming).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).thenIdempotent();
    expect(events.map((e) => (e.type === 'CheckoutConfirmationRecorded' ? e.data.current : e.type))).toEqual([1, 2, 3, 4, 'CheckoutCompleted']);
  });
  it('decided: a short transfer confirmed → awaiting_customer, quote live 15 minutes after it', () => {
    const confirming = [...opened, ...sent('underpaid')];
    const events = given(confirming, at(60_000)).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events();
    expect(events.at(-1)).toEqual({ type: 'CheckoutAwaitingCustomer', data: { checkout_id: 'chk_1', received_amount: '90', remaining_amount: '10', expires_at: '2025-01-01T00:15:00.000Z' } }); // sent 00:00 (decision 0009, addendum 2026-11-30)
  });
  it('decided: open → expired at the quote end without transfer; early timer and repeat change nothing', () => {
    given(opened, at(60_000)).when({ type: 'ExpireCheckout' }).then([]);
    given(opened, at(15 * 60_000)).when({ type: 'ExpireCheckout' }).thenIdempotent();
  });
  it('decided: open → failed when the payment ends under it; repeat changes nothing', () => {
    given(opened).when({ type: 'FailCheckout', failureCode: 'payment_canceled' }).thenIdempotent();
    given([...opened, ...given(opened).when({ type: 'FailCheckout', failureCode: 'payment_canceled' }).events()])
      .when({ type: 'MarkSent', simulate: 'exact', txHash: HASH }).then('checkout_failed');
  });
  it('retry safety: open and mark-sent twice add nothing', () => {
    given(opened).when(openCmd).then([]);
    given([...opened, ...sent('exact')]).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH }).then([]);
  });

  describe('a second real transfer while confirming (0009)', () => {
    const detect = (txHash: string, amount: string, network: 'ethereum' | 'polygon' = 'ethereum'): CheckoutCommand => ({ type: 'DetectTransfer', txHash, network, amount });
    const first = [...opened, ...given(opened).when(detect(HASH, '90')).events()];
    it('is recorded and adds to received_amount (underpaid → paid)', () => {
      expect(given(first).when(detect(HASH2, '10')).thenIdempotent()).toEqual([
        { type: 'CheckoutTransferDetected', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH2, network: 'ethereum', amount: '10', received_amount: '100', remaining_amount: null, overpaid_amount: null, simulated: false, detected_at: T0.toISOString() } },
      ]);
    });
    it('counts even after the quote time (the quote is held while a transfer confirms)', () => {
      expect(types(given(first, at(30 * 60_000)).when(detect(HASH2, '10')).events())).toEqual(['CheckoutTransferDetected']);
    });
    it('the checkout decides once every transfer has its confirmations: completed with the overpaid total', () => {
      const both = [...first, ...given(first).when(detect(HASH2, '20')).events()];
      const one = given(both).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events();
      expect(types(one)).toEqual(Array(4).fill('CheckoutConfirmationRecorded'));
      const two = given([...both, ...one]).when({ type: 'RecordConfirmations', txHash: HASH2, current: 4 }).thenIdempotent();
      expect(two.at(-1)).toEqual({ type: 'CheckoutCompleted', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', received_amount: '110', overpaid_amount: '10' } });
    });
    it('still short after both → awaiting_customer', () => {
      const both = [...first, ...given(first).when(detect(HASH2, '5')).events()];
      const one = given(both).when({ type: 'RecordConfirmations', txHash: HASH2, current: 4 }).events();
      expect(given([...both, ...one]).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events().at(-1)).toMatchObject({ type: 'CheckoutAwaitingCustomer', data: { received_amount: '95', remaining_amount: '5' } });
    });
    it('on another network → needs_review (wrong_network), not counted', () => {
      const events = given(first).when(detect(HASH2, '10', 'polygon')).events();
      expect(types(events)).toEqual(['CheckoutTransferDetected', 'CheckoutNeedsReview']);
      expect(events[0].data).toMatchObject({ received_amount: '90', remaining_amount: '10' });
    });
  });
});

describe('checkout decider: a reorganisation withdraws a transfer before it is final (issue 11)', () => {
  const detect = (txHash: string, amount: string, network: 'ethereum' | 'polygon' = 'ethereum'): CheckoutCommand => ({ type: 'DetectTransfer', txHash, network, amount });
  const withdraw = (txHash: string): CheckoutCommand => ({ type: 'WithdrawTransfer', txHash });
  const confirm = (txHash: string, current: number): CheckoutCommand => ({ type: 'RecordConfirmations', txHash, current });
  const after = (events: CheckoutEvent[], ...steps: [CheckoutCommand, Date?][]) =>
    steps.reduce((log, [command, now]) => [...log, ...given(log, now ?? T0).when(command).events()], events);

  it('confirming → withdraw → open again with nothing received (the quote still live; remaining null, as before anything was sent: chain audit L1); the same withdrawal again changes nothing', () => {
    const confirming = after(opened, [detect(HASH, '100')], [confirm(HASH, 2)]);
    const withdrawn = given(confirming, at(60_000)).when(withdraw(HASH)).thenIdempotent();
    expect(withdrawn).toEqual([
      { type: 'CheckoutTransferWithdrawn', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH, network: 'ethereum', amount: '100', received_amount: '0', remaining_amount: null, overpaid_amount: null, status: 'open' } },
    ]);
    const state = [...confirming, ...withdrawn].reduce(evolveCheckout, initialCheckoutState);
    expect(state).toMatchObject({ status: 'open', received: 0n, transfers: [], confirmingTx: null });
    // and it takes the customer's next transfer
    expect(types(given([...confirming, ...withdrawn], at(61_000)).when(detect(HASH2, '100')).events())).toEqual(['CheckoutTransferDetected']);
  });

  it('withdrawn after the quote ended (it was held while the transfer confirmed) → the checkout expires at once', () => {
    const confirming = after(opened, [detect(HASH, '100')]);
    given(confirming, at(20 * 60_000)).when(withdraw(HASH)).then([
      { type: 'CheckoutTransferWithdrawn', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH, network: 'ethereum', amount: '100', received_amount: '0', remaining_amount: null, overpaid_amount: null, status: 'open' } },
      { type: 'CheckoutExpired', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', received_amount: '0' } },
    ]);
  });

  it('a second transfer withdrawn while a confirmed short one stays → awaiting_customer again, the first still counted', () => {
    const underpaid = after(opened, [detect(HASH, '40')], [confirm(HASH, 4)]);
    expect([...underpaid].reduce(evolveCheckout, initialCheckoutState).status).toBe('awaiting_customer');
    const topUp = after(underpaid, [detect(HASH2, '60')]);
    const withdrawn = given(topUp).when(withdraw(HASH2)).events();
    expect(withdrawn[0].data).toMatchObject({ received_amount: '40', remaining_amount: '60', status: 'awaiting_customer' });
    expect([...topUp, ...withdrawn].reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'awaiting_customer', received: 40_000_000n }); // 40 USDC in its 6-decimal units
  });

  it('a final transfer, a completed checkout, or a hash the checkout never saw: nothing to withdraw', () => {
    const completed = after(opened, [detect(HASH, '100')], [confirm(HASH, 4)]);
    expect([...completed].reduce(evolveCheckout, initialCheckoutState).status).toBe('completed');
    given(completed).when(withdraw(HASH)).then([]);
    given(after(opened, [detect(HASH, '100')])).when(withdraw(HASH2)).then([]);
  });

  it('a wrong-network transfer withdrawn leaves the review as it is, without the transfer', () => {
    const review = after(opened, [detect(HASH, '100', 'polygon')]);
    expect([...review].reduce(evolveCheckout, initialCheckoutState).status).toBe('needs_review');
    const withdrawn = given(review).when(withdraw(HASH)).events();
    expect(withdrawn[0].data).toMatchObject({ network: 'polygon', received_amount: '0', status: 'needs_review' });
  });
});

describe('checkout decider: a transfer to a checkout that already completed (0025 addendum, 2026-11-28)', () => {
  const detect = (txHash: string, amount: string, network: 'ethereum' | 'polygon' = 'ethereum'): CheckoutCommand => ({ type: 'DetectTransfer', txHash, network, amount });
  const confirm = (txHash: string, current: number): CheckoutCommand => ({ type: 'RecordConfirmations', txHash, current });
  const after = (events: CheckoutEvent[], ...steps: [CheckoutCommand, Date?][]) =>
    steps.reduce((log, [command, now]) => [...log, ...given(log, now ?? T0).when(command).events()], events);
  const completed = after(opened, [detect(HASH, '100')], [confirm(HASH, 4)]);
  const fold = (events: CheckoutEvent[]) => events.reduce(evolveCheckout, initialCheckoutState);

  it('given a completed checkout, when a transfer arrives on its network (even after the quote time), then it is recorded: received and overpaid grow, the checkout stays completed', () => {
    expect(fold(completed).status).toBe('completed');
    const detected = given(completed, at(60 * 60_000)).when(detect(HASH2, '5')).thenIdempotent();
    expect(detected).toEqual([
      { type: 'CheckoutTransferDetected', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH2, network: 'ethereum', amount: '5', received_amount: '105', remaining_amount: null, overpaid_amount: '5', simulated: false, detected_at: '2025-01-01T01:00:00.000Z' } },
    ]);
    expect(fold([...completed, ...detected])).toMatchObject({ status: 'completed', received: 105_000_000n });
  });

  it('its confirmations are recorded up to required; the checkout decides nothing again (no second CheckoutCompleted)', () => {
    const second = after(completed, [detect(HASH2, '5')]);
    const confirmations = given(second).when(confirm(HASH2, 4)).thenIdempotent();
    expect(confirmations.map((e) => (e.type === 'CheckoutConfirmationRecorded' ? e.data.current : e.type))).toEqual([1, 2, 3, 4]);
    expect(fold([...second, ...confirmations])).toMatchObject({ status: 'completed', received: 105_000_000n, confirmations: { current: 4, required: 4 } });
  });

  it('the same transfer reported again (a restart, a replay, the transaction in a re-mined block) is recorded once', () => {
    const second = after(completed, [detect(HASH2, '5')], [confirm(HASH2, 2)]);
    given(second).when(detect(HASH2, '5')).then([]);
    given(after(second, [confirm(HASH2, 4)])).when(detect(HASH2, '5')).then([]);
  });

  it('withdrawn by a reorganisation before it is final: the amounts go back, the checkout stays completed; once final it is never withdrawn', () => {
    const second = after(completed, [detect(HASH2, '5')], [confirm(HASH2, 2)]);
    const withdrawn = given(second).when({ type: 'WithdrawTransfer', txHash: HASH2 }).thenIdempotent();
    expect(withdrawn).toEqual([
      { type: 'CheckoutTransferWithdrawn', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH2, network: 'ethereum', amount: '5', received_amount: '100', remaining_amount: null, overpaid_amount: null, status: 'completed' } },
    ]);
    expect(fold([...second, ...withdrawn])).toMatchObject({ status: 'completed', received: 100_000_000n, transfers: [{ txHash: HASH, current: 4 }] });
    given(after(second, [confirm(HASH2, 4)])).when({ type: 'WithdrawTransfer', txHash: HASH2 }).then([]);
    given(second).when({ type: 'WithdrawTransfer', txHash: HASH }).then([]); // the transfer it completed on is final
  });

  it('mark-sent stays a no-op (no second simulated transfer)', () => {
    given(completed).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH2 }).then([]);
  });
});

describe('checkout decider: a transfer to a checkout in review, or on another network to one that completed (0025 addendum, 2026-11-28, second)', () => {
  const HASH3 = '0x' + 'ef'.repeat(32);
  const detect = (txHash: string, amount: string, network: 'ethereum' | 'polygon' = 'ethereum'): CheckoutCommand => ({ type: 'DetectTransfer', txHash, network, amount });
  const confirm = (txHash: string, current: number): CheckoutCommand => ({ type: 'RecordConfirmations', txHash, current });
  const after = (events: CheckoutEvent[], ...steps: [CheckoutCommand, Date?][]) =>
    steps.reduce((log, [command, now]) => [...log, ...given(log, now ?? T0).when(command).events()], events);
  const fold = (events: CheckoutEvent[]) => events.reduce(evolveCheckout, initialCheckoutState);
  const completed = after(opened, [detect(HASH, '100')], [confirm(HASH, 4)]);
  const wrongNetwork = after(opened, [detect(HASH, '100', 'polygon')]);
  const late = after(opened, [{ type: 'ExpireCheckout' }, at(15 * 60_000)], [detect(HASH, '100'), at(16 * 60_000)]);
  const claimed = after(opened, [{ type: 'ExpireCheckout' }, at(15 * 60_000)], [{ type: 'ClaimCheckout', txHash: HASH, paymentSucceeded: false }, at(16 * 60_000)]);

  it('given a completed checkout, when a transfer arrives on another network, then it is listed (received stays), the checkout stays completed and is not put in review', () => {
    const detected = given(completed, at(60 * 60_000)).when(detect(HASH2, '5', 'polygon')).thenIdempotent();
    expect(detected).toEqual([
      { type: 'CheckoutTransferDetected', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH2, network: 'polygon', amount: '5', received_amount: '100', remaining_amount: null, overpaid_amount: null, simulated: false, confirmations_required: 32, detected_at: '2025-01-01T01:00:00.000Z' } },
    ]);
    expect(fold([...completed, ...detected])).toMatchObject({ status: 'completed', reviewReason: null, received: 100_000_000n, transfers: [{ txHash: HASH }, { txHash: HASH2, network: 'polygon' }] });
    // its confirmations are recorded, the checkout decides nothing; a reorganisation withdraws it only before it is final
    const two = after([...completed, ...detected], [confirm(HASH2, 2)]);
    expect(given(two).when({ type: 'WithdrawTransfer', txHash: HASH2 }).events()).toEqual([
      { type: 'CheckoutTransferWithdrawn', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH2, network: 'polygon', amount: '5', received_amount: '100', remaining_amount: null, overpaid_amount: null, status: 'completed' } },
    ]);
    // final at polygon's depth, 32 (0025 addendum, 2026-11-29, own network): at 4 it is still withdrawn
    const four = after(two, [confirm(HASH2, 4)]);
    expect(types(given(four).when({ type: 'WithdrawTransfer', txHash: HASH2 }).events())).toEqual(['CheckoutTransferWithdrawn']);
    const final = given(two).when(confirm(HASH2, 32)).thenIdempotent();
    expect(types(final)).toEqual(Array(30).fill('CheckoutConfirmationRecorded'));
    given([...two, ...final]).when({ type: 'WithdrawTransfer', txHash: HASH2 }).then([]);
  });

  it.each([
    ['wrong_network', wrongNetwork, 0n],
    ['late', late, 100_000_000n],
  ] as const)('given a checkout in review (%s), when the quoted amount arrives on its network, then it is recorded (received grows) without a second review; once final the checkout stays in review (the business decides)', (reason, review, before) => {
    expect(fold(review)).toMatchObject({ status: 'needs_review', reviewReason: reason, received: before });
    const detected = given(review, at(20 * 60_000)).when(detect(HASH2, '100')).thenIdempotent();
    expect(types(detected)).toEqual(['CheckoutTransferDetected']);
    expect(detected[0].data).toMatchObject({ tx_hash: HASH2, network: 'ethereum', amount: '100', simulated: false });
    expect(fold([...review, ...detected])).toMatchObject({ status: 'needs_review', reviewReason: reason, received: before + 100_000_000n });
    const final = given([...review, ...detected]).when(confirm(HASH2, 4)).thenIdempotent();
    expect(types(final)).toEqual(Array(4).fill('CheckoutConfirmationRecorded'));
    expect(fold([...review, ...detected, ...final])).toMatchObject({ status: 'needs_review', reviewReason: reason });
  });

  it('given a checkout in review, when another transfer on another network arrives, then it is listed without a second review', () => {
    const detected = given(wrongNetwork).when(detect(HASH2, '3', 'polygon')).thenIdempotent();
    expect(types(detected)).toEqual(['CheckoutTransferDetected']);
    expect(fold([...wrongNetwork, ...detected])).toMatchObject({ status: 'needs_review', reviewReason: 'wrong_network', received: 0n });
  });

  it('given a claimed checkout, when all it asked for arrives on its network and is final, then it completes (the chain settled the claim: no longer in review)', () => {
    expect(fold(claimed)).toMatchObject({ status: 'needs_review', reviewReason: 'claimed' });
    const paid = after(claimed, [detect(HASH2, '100'), at(20 * 60_000)]);
    expect(types(paid.slice(claimed.length))).toEqual(['CheckoutTransferDetected']);
    const final = given(paid, at(21 * 60_000)).when(confirm(HASH2, 4)).thenIdempotent();
    expect(types(final)).toEqual([...Array(4).fill('CheckoutConfirmationRecorded'), 'CheckoutCompleted']);
    expect(final.at(-1)).toEqual({ type: 'CheckoutCompleted', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', received_amount: '100', overpaid_amount: null } });
    expect(fold([...paid, ...final])).toMatchObject({ status: 'completed', reviewReason: null, received: 100_000_000n });
  });

  it('given a claimed checkout, a short transfer leaves it in review; the rest then completes it; money on another network leaves it to the business', () => {
    const short = after(claimed, [detect(HASH2, '40')], [confirm(HASH2, 4)]);
    expect(fold(short)).toMatchObject({ status: 'needs_review', reviewReason: 'claimed', received: 40_000_000n });
    const rest = after(short, [detect(HASH3, '60')]);
    expect(given(rest).when(confirm(HASH3, 4)).events().at(-1)).toMatchObject({ type: 'CheckoutCompleted', data: { received_amount: '100' } });
    // two in flight: the last to be final decides
    const both = after(claimed, [detect(HASH2, '50')], [detect(HASH3, '50')], [confirm(HASH2, 4)]);
    expect(fold(both).status).toBe('needs_review');
    expect(given(both).when(confirm(HASH3, 4)).events().at(-1)).toMatchObject({ type: 'CheckoutCompleted' });
    // money on another network too: not a claim alone any more
    const mixed = after(claimed, [detect(HASH2, '5', 'polygon')], [detect(HASH3, '100')]);
    expect(types(given(mixed).when(confirm(HASH3, 4)).events())).toEqual(Array(4).fill('CheckoutConfirmationRecorded'));
  });

  it('the same transfer reported again (a restart, a replay) is recorded once; a reorganisation withdraws it only before it is final, the review staying as it is', () => {
    const seen = after(wrongNetwork, [detect(HASH2, '100')], [confirm(HASH2, 2)]);
    given(seen).when(detect(HASH2, '100')).then([]);
    const withdrawn = given(seen).when({ type: 'WithdrawTransfer', txHash: HASH2 }).thenIdempotent();
    expect(withdrawn).toEqual([
      { type: 'CheckoutTransferWithdrawn', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH2, network: 'ethereum', amount: '100', received_amount: '0', remaining_amount: null, overpaid_amount: null, status: 'needs_review' } },
    ]);
    expect(fold([...seen, ...withdrawn])).toMatchObject({ status: 'needs_review', reviewReason: 'wrong_network', received: 0n });
    const final = after(seen, [confirm(HASH2, 4)]);
    given(final).when({ type: 'WithdrawTransfer', txHash: HASH2 }).then([]);
    given(final).when(detect(HASH2, '100')).then([]);
  });

  it('mark-sent on a checkout in review stays a no-op (no second simulated transfer)', () => {
    given(wrongNetwork).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH2 }).then([]);
    given(claimed).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH2 }).then([]);
  });
});

describe('checkout decider: the review ends when the payment succeeds (0025 addendum, 2026-11-29)', () => {
  const after = (events: CheckoutEvent[], ...steps: [CheckoutCommand, Date?][]) =>
    steps.reduce((log, [command, now]) => [...log, ...given(log, now ?? T0).when(command).events()], events);
  const fold = (events: CheckoutEvent[]) => events.reduce(evolveCheckout, initialCheckoutState);
  const wrongNetwork = after(opened, [{ type: 'DetectTransfer', txHash: HASH, network: 'polygon', amount: '100' }]);
  const late = after(opened, [{ type: 'ExpireCheckout' }, at(15 * 60_000)], [{ type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '100' }, at(16 * 60_000)]);
  const claimed = after(opened, [{ type: 'ExpireCheckout' }, at(15 * 60_000)], [{ type: 'ClaimCheckout', txHash: HASH, paymentSucceeded: false }, at(16 * 60_000)]);
  const resolved = (resolution: 'payment_accepted' | 'payment_succeeded', status: 'completed' | 'failed'): CheckoutEvent => ({
    type: 'CheckoutReviewResolved',
    data: { checkout_id: 'chk_1', payment_id: 'pmt_1', resolution, status, failure_code: status === 'failed' ? 'payment_succeeded' : null },
  });

  it.each([
    ['wrong_network', wrongNetwork],
    ['late', late],
    ['claimed', claimed],
  ] as const)('given a checkout in review (%s), when the payment is accepted with its money counted, then it completes; the review reason stays; again → nothing', (reason, review) => {
    expect(fold(review)).toMatchObject({ status: 'needs_review', reviewReason: reason });
    const events = given(review, at(60 * 60_000)).when({ type: 'ResolveReview', resolution: 'payment_accepted', counted: true }).thenIdempotent();
    expect(events).toEqual([resolved('payment_accepted', 'completed')]);
    expect(fold([...review, ...events])).toMatchObject({ status: 'completed', reviewReason: reason, failureCode: null });
  });

  it('given a claimed checkout, when the payment is paid in full another way (not counting the claim), then it fails with payment_succeeded, the claim kept', () => {
    const events = given(claimed, at(60 * 60_000)).when({ type: 'ResolveReview', resolution: 'payment_succeeded', counted: false }).thenIdempotent();
    expect(events).toEqual([resolved('payment_succeeded', 'failed')]);
    expect(fold([...claimed, ...events])).toMatchObject({ status: 'failed', reviewReason: 'claimed', failureCode: 'payment_succeeded', claimTxHash: HASH });
  });

  it('given a checkout not in review (open, confirming, completed, expired, canceled, failed), when the payment succeeds, then nothing', () => {
    const confirming = after(opened, [{ type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '100' }]);
    const completed = after(confirming, [{ type: 'RecordConfirmations', txHash: HASH, current: 4 }]);
    const expired = after(opened, [{ type: 'ExpireCheckout' }, at(15 * 60_000)]);
    const canceled = after(opened, [{ type: 'CancelCheckout' }]);
    const failed = after(opened, [{ type: 'FailCheckout', failureCode: 'payment_canceled' }]);
    for (const state of [opened, confirming, completed, expired, canceled, failed]) {
      given(state).when({ type: 'ResolveReview', resolution: 'payment_accepted', counted: true }).then([]);
      given(state).when({ type: 'ResolveReview', resolution: 'payment_succeeded', counted: false }).then([]);
    }
  });

  it('given a checkout failed because its payment succeeded and paid afterwards (a late transfer: a review that began after the success), when a success is resolved again, then nothing: the review stays for the business', () => {
    const paidAfter = after(opened, [{ type: 'FailCheckout', failureCode: 'payment_succeeded' }], [{ type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '100' }, at(20 * 60_000)]);
    expect(fold(paidAfter)).toMatchObject({ status: 'needs_review', reviewReason: 'late', failureCode: 'payment_succeeded' });
    given(paidAfter, at(60 * 60_000)).when({ type: 'ResolveReview', resolution: 'payment_accepted', counted: true }).then([]);
    given(paidAfter, at(60 * 60_000)).when({ type: 'ResolveReview', resolution: 'payment_succeeded', counted: false }).then([]);
  });

  it('a resolved checkout keeps its rules: a completed one records a further transfer without a new review; mark-sent adds nothing', () => {
    const done = after(wrongNetwork, [{ type: 'ResolveReview', resolution: 'payment_accepted', counted: true }]);
    const more = given(done, at(60 * 60_000)).when({ type: 'DetectTransfer', txHash: HASH2, network: 'ethereum', amount: '5' }).events();
    expect(types(more)).toEqual(['CheckoutTransferDetected']);
    expect(fold([...done, ...more]).status).toBe('completed');
    given(done).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH2 }).then([]);
  });
});

describe('checkout decider: a short transfer holds the quote for the quote life (QUOTE_TTL_SECONDS)', () => {
  it('with a 60-second quote life, awaiting_customer ends 60 s after the short transfer, not 15 minutes (decision 0009, addendum 2026-11-30: after the transfer, not its confirmation)', () => {
    const short = decideCheckout({ ...openCmd, quoteTtlMs: 60_000 }, initialCheckoutState, { now: T0 });
    expect(short[0].data).toMatchObject({ quote_ttl_ms: 60_000, expires_at: '2025-01-01T00:01:00.000Z' });
    const detected = given(short, at(10_000)).when({ type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '40' }).events();
    const confirmed = given([...short, ...detected], at(50_000)).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events();
    expect(confirmed.find((e) => e.type === 'CheckoutAwaitingCustomer')?.data).toMatchObject({ expires_at: '2025-01-01T00:01:10.000Z' });
  });
});

describe('checkout decider: a transaction seen in the mempool before the quote ends holds it until mined or dropped (0023 addendum, 2026-11-29)', () => {
  const sight = (txHash: string, amount: string, network: 'ethereum' | 'polygon' = 'ethereum'): CheckoutCommand => ({ type: 'SightTransfer', txHash, network, amount });
  const detect = (txHash: string, amount: string): CheckoutCommand => ({ type: 'DetectTransfer', txHash, network: 'ethereum', amount });
  const confirm = (txHash: string, current: number): CheckoutCommand => ({ type: 'RecordConfirmations', txHash, current });
  const after = (events: CheckoutEvent[], ...steps: [CheckoutCommand, Date?][]) =>
    steps.reduce((log, [command, now]) => [...log, ...given(log, now ?? T0).when(command).events()], events);
  const QUOTE_END = 15 * 60_000;
  const DAY = 24 * 3600_000;

  it('sighted at minute 14 → recorded once, nothing counted; the quote timer at its end changes nothing', () => {
    const sighted = given(opened, at(14 * 60_000)).when(sight(HASH, '100')).thenIdempotent();
    expect(sighted).toEqual([
      { type: 'CheckoutTransferSighted', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH, network: 'ethereum', amount: '100', sighted_at: at(14 * 60_000).toISOString() } },
    ]);
    const state = [...opened, ...sighted].reduce(evolveCheckout, initialCheckoutState);
    expect(state).toMatchObject({ status: 'open', received: 0n, transfers: [] });
    given([...opened, ...sighted], at(QUOTE_END)).when({ type: 'ExpireCheckout' }).then([]);
    given([...opened, ...sighted], at(QUOTE_END + 60 * 60_000)).when({ type: 'ExpireCheckout' }).then([]);
  });

  it('sighted before the quote ends, mined after it → counted on time (confirming, no review), then completed', () => {
    const sighted = after(opened, [sight(HASH, '100'), at(14 * 60_000)], [{ type: 'ExpireCheckout' }, at(QUOTE_END)]);
    const mined = given(sighted, at(QUOTE_END + 10 * 60_000)).when(detect(HASH, '100')).events();
    expect(types(mined)).toEqual(['CheckoutTransferDetected']);
    expect(mined[0].data).toMatchObject({ tx_hash: HASH, received_amount: '100', remaining_amount: null });
    const confirming = [...sighted, ...mined];
    expect(confirming.reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'confirming', sightings: [] });
    const done = given(confirming, at(QUOTE_END + 50 * 60_000)).when(confirm(HASH, 4)).events();
    expect(types(done)).toEqual([...Array(4).fill('CheckoutConfirmationRecorded'), 'CheckoutCompleted']);
  });

  it('sighted, then dropped from the mempool after the quote ended → the checkout expires then; a transfer mined later is late', () => {
    const held = after(opened, [sight(HASH, '100'), at(14 * 60_000)], [{ type: 'ExpireCheckout' }, at(QUOTE_END)]);
    const dropped = given(held, at(QUOTE_END + 30 * 60_000)).when({ type: 'DropSighting', txHash: HASH }).thenIdempotent();
    expect(dropped).toEqual([
      { type: 'CheckoutSightingDropped', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH } },
      { type: 'CheckoutExpired', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', received_amount: '0' } },
    ]);
    expect(types(given([...held, ...dropped], at(QUOTE_END + 40 * 60_000)).when(detect(HASH, '100')).events())).toEqual(['CheckoutTransferDetected', 'CheckoutNeedsReview']);
  });

  it('dropped while the quote is still live → only the sighting ends; the quote ends at its own time', () => {
    const held = after(opened, [sight(HASH, '100'), at(5 * 60_000)]);
    given(held, at(6 * 60_000)).when({ type: 'DropSighting', txHash: HASH }).then([{ type: 'CheckoutSightingDropped', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', tx_hash: HASH } }]);
  });

  it('two sightings: one dropped after the quote ended, the other still holds it', () => {
    const held = after(opened, [sight(HASH, '50'), at(10 * 60_000)], [sight(HASH2, '50'), at(11 * 60_000)]);
    expect(types(given(held, at(QUOTE_END + 60_000)).when({ type: 'DropSighting', txHash: HASH }).events())).toEqual(['CheckoutSightingDropped']);
  });

  it('a sighting never mined nor seen dropped holds the quote at most a day: the timer then ends it', () => {
    const held = after(opened, [sight(HASH, '100'), at(14 * 60_000)]);
    given(held, at(14 * 60_000 + DAY - 1)).when({ type: 'ExpireCheckout' }).then([]);
    expect(types(given(held, at(14 * 60_000 + DAY)).when({ type: 'ExpireCheckout' }).events())).toEqual(['CheckoutExpired']);
  });

  it('seen only after the quote ended → nothing recorded; mined → late, as before', () => {
    given(opened, at(QUOTE_END)).when(sight(HASH, '100')).then([]);
    expect(types(given(opened, at(QUOTE_END + 10 * 60_000)).when(detect(HASH, '100')).events())).toEqual(['CheckoutExpired', 'CheckoutTransferDetected', 'CheckoutNeedsReview']);
  });

  it('another transaction than the one sighted, mined after the quote ended → late (only the sighted one is held)', () => {
    const held = after(opened, [sight(HASH, '100'), at(14 * 60_000)]);
    expect(types(given(held, at(QUOTE_END + 60_000)).when(detect(HASH2, '100')).events())).toEqual(['CheckoutExpired', 'CheckoutTransferDetected', 'CheckoutNeedsReview']);
  });

  it('nothing to hold: another network, a transaction detected already, a checkout confirming or ended, a zero amount', () => {
    given(opened, at(60_000)).when(sight(HASH, '100', 'polygon')).then([]);
    given(opened, at(60_000)).when(sight(HASH, '0')).then([]);
    const confirming = after(opened, [detect(HASH, '100')]);
    given(confirming, at(60_000)).when(sight(HASH, '100')).then([]);
    given(confirming, at(60_000)).when(sight(HASH2, '100')).then([]);
    const canceled = after(opened, [{ type: 'CancelCheckout' }]);
    given(canceled, at(60_000)).when(sight(HASH, '100')).then([]);
    given(opened).when({ type: 'DropSighting', txHash: HASH }).then([]);
  });

  it('funds on the way: the customer can neither cancel nor replace a held checkout; a new quote of the payment still sets it aside; dropped, both work again', () => {
    const held = after(opened, [sight(HASH, '100'), at(14 * 60_000)]);
    given(held, at(14 * 60_000 + 1)).when({ type: 'CancelCheckout' }).then('checkout_not_cancelable');
    given(held, at(QUOTE_END + 60_000)).when({ type: 'CancelCheckout' }).then('checkout_not_cancelable');
    given(held, at(14 * 60_000 + 1)).when({ type: 'SupersedeCheckout', by: 'customer' }).then('checkout_not_supersedable');
    given(held, at(14 * 60_000 + 1)).when({ type: 'SupersedeCheckout', by: 'payment' }).then([{ type: 'CheckoutSuperseded', data: { checkout_id: 'chk_1' } }]);
    const dropped = after(held, [{ type: 'DropSighting', txHash: HASH }, at(14 * 60_000 + 30_000)]);
    expect(types(given(dropped, at(14 * 60_000 + 40_000)).when({ type: 'CancelCheckout' }).events())).toEqual(['CheckoutCanceled']);
    given(dropped, at(14 * 60_000 + 40_000)).when({ type: 'SupersedeCheckout', by: 'customer' }).then([{ type: 'CheckoutSuperseded', data: { checkout_id: 'chk_1' } }]);
    // a sighting older than the hold holds nothing any more
    expect(types(given(held, at(14 * 60_000 + DAY)).when({ type: 'CancelCheckout' }).events())).toEqual(['CheckoutCanceled']);
  });

  it('a short transfer awaiting the rest: the rest sighted in the extended quote holds it too', () => {
    const short = after(opened, [detect(HASH, '40'), at(60_000)], [confirm(HASH, 4), at(2 * 60_000)]);
    const state = short.reduce(evolveCheckout, initialCheckoutState);
    expect(state).toMatchObject({ status: 'awaiting_customer' });
    const end = Date.parse((state as { expiresAt: string }).expiresAt) - T0.getTime();
    const held = after(short, [sight(HASH2, '60'), at(end - 60_000)]);
    given(held, at(end)).when({ type: 'ExpireCheckout' }).then([]);
    expect(types(given(held, at(end + 5 * 60_000)).when(detect(HASH2, '60')).events())).toEqual(['CheckoutTransferDetected']);
  });
});

describe('checkout decider: a simulated short transfer of a remainder of one smallest unit (outside audit L3, 2026-11-29)', () => {
  const remainderOf = (amount: string) => decideCheckout({ ...openCmd, checkoutId: 'chk_r', remainder: { amount, priceMinor: 1 } }, initialCheckoutState, { now: T0 });
  const markSent = (simulate: 'exact' | 'underpaid' | 'overpaid'): CheckoutCommand => ({ type: 'MarkSent', simulate, txHash: HASH });

  it('given a remainder checkout for 0.000001 USDC (1 unit), when mark-sent underpaid, then 400 invalid_request on simulate: nothing smaller than what is due can be sent, and nothing is recorded', () => {
    const refused = given(remainderOf('0.000001')).when(markSent('underpaid'));
    refused.then('invalid_request');
    expect(() => refused.events()).toThrow(expect.objectContaining({ field: 'simulate', message: expect.stringMatching(/0\.000001 USDC/) }));
  });
  it('given the same checkout, when mark-sent exact or overpaid, then the unit (or two) is sent', () => {
    expect(given(remainderOf('0.000001')).when(markSent('exact')).events()[0].data).toMatchObject({ amount: '0.000001', remaining_amount: null });
    expect(given(remainderOf('0.000001')).when(markSent('overpaid')).events()[0].data).toMatchObject({ amount: '0.000002', overpaid_amount: '0.000001' });
  });
  it('given a remainder of 2 units, when mark-sent underpaid, then 1 unit is sent (90% rounded down: short of what is due and more than nothing)', () => {
    expect(given(remainderOf('0.000002')).when(markSent('underpaid')).events()[0].data).toMatchObject({ amount: '0.000001', remaining_amount: '0.000001' });
  });
  it('given an open checkout, when a chain reports a transfer of nothing (a zero-value token transfer), then nothing is recorded', () => {
    given(opened).when({ type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '0' }).then([]);
    given(opened).when({ type: 'DetectTransfer', txHash: HASH, network: 'polygon', amount: '0' }).then([]);
  });
});

describe('checkout decider: a payment paid on two quotes (0025 addendum, 2026-11-29, multi-quote; outside audit K1, M4)', () => {
  const confirming = [...opened, ...sent('exact')];
  const short = [...opened, ...sent('underpaid')];
  const then = (events: CheckoutEvent[], command: CheckoutCommand, now = T0) => [...events, ...given(events, now).when(command).events()];
  const awaiting = then(short, { type: 'RecordConfirmations', txHash: HASH, current: 4 });

  it('given a confirming checkout whose transfer the payment recorded as a second payment, when ReviewDuplicatePayment, then needs_review with review_reason duplicate_payment (once)', () => {
    const events = given(confirming).when({ type: 'ReviewDuplicatePayment', txHash: HASH }).thenIdempotent();
    expect(events).toEqual([{ type: 'CheckoutNeedsReview', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', review_reason: 'duplicate_payment', tx_hash: HASH } }]);
    const reviewed = [...confirming, ...events];
    expect(reviewed.reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'needs_review', reviewReason: 'duplicate_payment' });
    // its confirmations are recorded, and it stays in review for the business (no completed of its own)
    expect(types(given(reviewed).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events())).toEqual(Array(4).fill('CheckoutConfirmationRecorded'));
    // accepting the payment ends the review: completed, the reason kept as history
    const resolved = then(reviewed, { type: 'ResolveReview', resolution: 'payment_accepted', counted: true });
    expect(resolved.reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'completed', reviewReason: 'duplicate_payment' });
  });
  it('given an awaiting_customer checkout, when ReviewDuplicatePayment, then needs_review; given one completed, in review for another reason, or ended, then nothing', () => {
    expect(given(awaiting).when({ type: 'ReviewDuplicatePayment', txHash: HASH }).events()).toEqual([expect.objectContaining({ type: 'CheckoutNeedsReview', data: expect.objectContaining({ review_reason: 'duplicate_payment' }) })]);
    const completed = then(confirming, { type: 'RecordConfirmations', txHash: HASH, current: 4 });
    given(completed).when({ type: 'ReviewDuplicatePayment', txHash: HASH }).then([]);
    given([...opened, ...sent('wrong_network')]).when({ type: 'ReviewDuplicatePayment', txHash: HASH }).then([]);
    given(then(opened, { type: 'CancelCheckout' })).when({ type: 'ReviewDuplicatePayment', txHash: HASH }).then([]);
  });
  it('given a checkout awaiting the rest of a short transfer, when RecordPaymentCovered, then it completes with what it has: nothing remaining, nothing more simulated', () => {
    const events = given(awaiting).when({ type: 'RecordPaymentCovered' }).thenIdempotent();
    expect(events).toEqual([
      { type: 'CheckoutPaymentCovered', data: { checkout_id: 'chk_1', payment_id: 'pmt_1' } },
      { type: 'CheckoutCompleted', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', received_amount: '90', overpaid_amount: null } },
    ]);
    const covered = [...awaiting, ...events];
    expect(covered.reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'completed', covered: true });
    given(covered).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH2 }).then([]); // no transfer for "what is left"
  });
  it('given a short transfer still confirming, when RecordPaymentCovered, then its final confirmation completes it instead of awaiting the customer', () => {
    const covered = then(short, { type: 'RecordPaymentCovered' });
    expect(types(covered.slice(short.length))).toEqual(['CheckoutPaymentCovered']);
    const final = given(covered).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events();
    expect(types(final)).toEqual([...Array(4).fill('CheckoutConfirmationRecorded'), 'CheckoutCompleted']);
    // without it (the old rule, one quote): awaiting_customer for the 10 left
    expect(types(given(short).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events()).at(-1)).toBe('CheckoutAwaitingCustomer');
  });
  it('given a checkout in review or nothing sent to it, when RecordPaymentCovered: recorded once on one with a transfer (its status stays), nothing on one nothing reached', () => {
    const inReview = [...short, ...given(short).when({ type: 'ReviewDuplicatePayment', txHash: HASH }).events()];
    expect(types(given(inReview).when({ type: 'RecordPaymentCovered' }).thenIdempotent())).toEqual(['CheckoutPaymentCovered']);
    given(opened).when({ type: 'RecordPaymentCovered' }).then([]);
  });
});

describe('checkout decider: a remainder checkout of a payment the money already held covers (0025 addendum, 2026-11-29, covered late; recheck audit N4)', () => {
  const remainder = decideCheckout({ ...openCmd, checkoutId: 'chk_r', remainder: { amount: '10', priceMinor: 1000 } }, initialCheckoutState, { now: T0 });
  const then = (events: CheckoutEvent[], command: CheckoutCommand, now = T0) => [...events, ...given(events, now).when(command).events()];

  it('given an open remainder checkout nothing was sent to, when RecordPaymentCovered, then it stops asking: covered and failed with payment_covered (once)', () => {
    const events = given(remainder).when({ type: 'RecordPaymentCovered' }).thenIdempotent();
    expect(events).toEqual([
      { type: 'CheckoutPaymentCovered', data: { checkout_id: 'chk_r', payment_id: 'pmt_1' } },
      { type: 'CheckoutFailed', data: { checkout_id: 'chk_r', payment_id: 'pmt_1', failure_code: 'payment_covered' } },
    ]);
    const stopped = [...remainder, ...events];
    expect(stopped.reduce(evolveCheckout, initialCheckoutState)).toMatchObject({ status: 'failed', failureCode: 'payment_covered', covered: true });
    // nothing more is taken: mark-sent is refused, and a real transfer is late money for the review
    given(stopped).when({ type: 'MarkSent', simulate: 'exact', txHash: HASH }).then('checkout_failed');
    expect(types(given(stopped, at(60_000)).when({ type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '10' }).events())).toEqual(['CheckoutTransferDetected', 'CheckoutNeedsReview']);
    // a replay after that transfer appends nothing (covered once)
    const paidAfter = then(stopped, { type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '10' }, at(60_000));
    given(paidAfter).when({ type: 'RecordPaymentCovered' }).then([]);
  });
  it('given a remainder checkout with a transfer seen in the mempool, ended, or the customer\'s own quote nothing reached, when RecordPaymentCovered, then nothing', () => {
    const sighted = then(remainder, { type: 'SightTransfer', txHash: HASH, network: 'ethereum', amount: '10' });
    given(sighted).when({ type: 'RecordPaymentCovered' }).then([]);
    given(then(remainder, { type: 'CancelCheckout' })).when({ type: 'RecordPaymentCovered' }).then([]);
    given(then(remainder, { type: 'ExpireCheckout' }, at(15 * 60_000)), at(15 * 60_000)).when({ type: 'RecordPaymentCovered' }).then([]);
    given(opened).when({ type: 'RecordPaymentCovered' }).then([]);
  });
  it('given a remainder checkout something reached, when RecordPaymentCovered, then the rule of any quote something reached (awaiting the rest: completes with what it has)', () => {
    const short = then(remainder, { type: 'MarkSent', simulate: 'underpaid', txHash: HASH });
    const awaiting = then(short, { type: 'RecordConfirmations', txHash: HASH, current: 4 });
    expect(types(given(awaiting).when({ type: 'RecordPaymentCovered' }).events())).toEqual(['CheckoutPaymentCovered', 'CheckoutCompleted']);
  });
});

describe('checkout decider: a transfer on another network is final at its own network\'s depth (0025 addendum, 2026-11-29, own network; outside audit M1)', () => {
  const detect = (txHash: string, amount: string, network: 'ethereum' | 'polygon' = 'ethereum'): CheckoutCommand => ({ type: 'DetectTransfer', txHash, network, amount });
  const confirm = (txHash: string, current: number): CheckoutCommand => ({ type: 'RecordConfirmations', txHash, current });
  const withdraw = (txHash: string): CheckoutCommand => ({ type: 'WithdrawTransfer', txHash });
  const after = (events: CheckoutEvent[], ...steps: [CheckoutCommand, Date?][]) =>
    steps.reduce((log, [command, now]) => [...log, ...given(log, now ?? T0).when(command).events()], events);
  const fold = (events: CheckoutEvent[]) => events.reduce(evolveCheckout, initialCheckoutState);
  const recorded = (events: CheckoutEvent[]) => events.filter((e) => e.type === 'CheckoutConfirmationRecorded').map((e) => [e.data.tx_hash, (e.data as { current: number }).current, (e.data as { required: number }).required]);

  it('given an ethereum quote, when USDC arrives on polygon (mark-sent wrong_network), then the detection carries polygon\'s 32 and the checkout shows 0 of 32', () => {
    const events = sent('wrong_network');
    expect(events[0]).toMatchObject({ type: 'CheckoutTransferDetected', data: { network: 'polygon', confirmations_required: 32 } });
    expect(fold([...opened, ...events])).toMatchObject({ status: 'needs_review', required: 4, confirmations: { current: 0, required: 32 }, transfers: [{ txHash: HASH, network: 'polygon', current: 0, required: 32 }] });
    // the quoted network's transfer is unchanged: no field, the quote's 4
    expect(sent('exact')[0].data).not.toHaveProperty('confirmations_required');
    expect(fold([...opened, ...sent('exact')])).toMatchObject({ confirmations: { current: 0, required: 4 }, transfers: [{ required: 4 }] });
  });

  it('given the polygon transfer, when 10 then 40 confirmations are reported, then they are recorded against 32, up to 32 and no further; 4 is not final', () => {
    const wrong = [...opened, ...sent('wrong_network')];
    const ten = given(wrong).when(confirm(HASH, 10)).events();
    expect(recorded(ten)).toEqual(Array.from({ length: 10 }, (_, i) => [HASH, i + 1, 32]));
    expect(fold([...wrong, ...ten])).toMatchObject({ status: 'needs_review', confirmations: { current: 10, required: 32 } });
    const rest = given([...wrong, ...ten]).when(confirm(HASH, 40)).thenIdempotent();
    expect(recorded(rest)).toEqual(Array.from({ length: 22 }, (_, i) => [HASH, i + 11, 32]));
    expect(types(rest)).toEqual(Array(22).fill('CheckoutConfirmationRecorded')); // in review: the business decides, nothing more
    // not final at 4: a reorganisation still withdraws it; final at 32, it is not withdrawn
    const atFour = after(wrong, [confirm(HASH, 4)]);
    expect(types(given(atFour).when(withdraw(HASH)).events())).toEqual(['CheckoutTransferWithdrawn']);
    given([...wrong, ...ten, ...rest]).when(withdraw(HASH)).then([]);
  });

  it('given a completed ethereum checkout, when a polygon transfer is listed and confirmed, then it counts to 32 and the checkout shows its count while it is the one shown', () => {
    const completed = after(opened, [detect(HASH, '100')], [confirm(HASH, 4)]);
    expect(fold(completed)).toMatchObject({ status: 'completed', confirmations: { current: 4, required: 4 } });
    const listed = after(completed, [detect(HASH2, '5', 'polygon'), at(60_000)], [confirm(HASH2, 32), at(60_000)]);
    expect(recorded(listed.slice(completed.length))).toEqual(Array.from({ length: 32 }, (_, i) => [HASH2, i + 1, 32]));
    expect(fold(listed)).toMatchObject({ status: 'completed', confirmingTx: HASH2, confirmations: { current: 32, required: 32 } });
  });

  it('given a confirming ethereum transfer and a later polygon one (shown), when the ethereum one reaches 4, then that transfer decides on 4 and the shown count stays the polygon one\'s', () => {
    const both = after(opened, [detect(HASH, '100')], [detect(HASH2, '5', 'polygon')], [confirm(HASH2, 3)]);
    expect(fold(both)).toMatchObject({ status: 'needs_review', confirmingTx: HASH2, confirmations: { current: 3, required: 32 } });
    const four = given(both).when(confirm(HASH, 4)).events();
    expect(recorded(four)).toEqual([1, 2, 3, 4].map((n) => [HASH, n, 4]));
    expect(fold([...both, ...four])).toMatchObject({ confirmations: { current: 3, required: 32 }, transfers: [{ txHash: HASH, current: 4, required: 4 }, { txHash: HASH2, current: 3, required: 32 }] });
  });

  it('given a checkout stored before the rule (a wrong-network detection without confirmations_required), then its transfer stays final at the quote\'s required', () => {
    const stored = sent('wrong_network').map((e) => (e.type === 'CheckoutTransferDetected' ? { ...e, data: { ...e.data, confirmations_required: undefined } } : e)) as CheckoutEvent[];
    const events = given([...opened, ...stored]).when(confirm(HASH, 10)).events();
    expect(recorded(events)).toEqual([1, 2, 3, 4].map((n) => [HASH, n, 4]));
  });
});

describe('checkout decider: a payment that succeeded tells a quote left short that nothing more is due (0012 addendum, 2026-11-29, paid; api audit L3)', () => {
  const then = (events: CheckoutEvent[], command: CheckoutCommand, now = T0) => [...events, ...given(events, now).when(command).events()];
  const fold = (events: CheckoutEvent[]) => events.reduce(evolveCheckout, initialCheckoutState);
  const paid: CheckoutCommand = { type: 'RecordPaymentCovered', succeeded: true };
  const short = then(then(opened, { type: 'MarkSent', simulate: 'underpaid', txHash: HASH }), { type: 'RecordConfirmations', txHash: HASH, current: 4 });
  const expired = then(short, { type: 'ExpireCheckout' }, at(20 * 60_000));

  it('given an expired quote paid short (90 of 100), when the payment succeeded, then it records CheckoutPaymentCovered once and stays expired', () => {
    expect(fold(expired)).toMatchObject({ status: 'expired', received: 90_000_000n });
    const events = given(expired, at(30 * 60_000)).when(paid).thenIdempotent();
    expect(events).toEqual([{ type: 'CheckoutPaymentCovered', data: { checkout_id: 'chk_1', payment_id: 'pmt_1' } }]);
    expect(fold([...expired, ...events])).toMatchObject({ status: 'expired', covered: true });
  });
  it('given a quote still awaiting the rest, when the payment succeeded (accepted short), then it completes with what it has', () => {
    expect(fold(short)).toMatchObject({ status: 'awaiting_customer' });
    expect(given(short).when(paid).events()).toEqual([
      { type: 'CheckoutPaymentCovered', data: { checkout_id: 'chk_1', payment_id: 'pmt_1' } },
      { type: 'CheckoutCompleted', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', received_amount: '90', overpaid_amount: null } },
    ]);
  });
  it('given a quote in review or failed after a short transfer, when the payment succeeded, then it is covered too (its status stays)', () => {
    const claimed = then(expired, { type: 'ClaimCheckout', txHash: HASH2, paymentSucceeded: false }, at(21 * 60_000));
    expect(types(given(claimed).when(paid).events())).toEqual(['CheckoutPaymentCovered']);
    const resolved = then(claimed, { type: 'ResolveReview', resolution: 'payment_succeeded', counted: false });
    expect(fold(resolved)).toMatchObject({ status: 'failed', failureCode: 'payment_succeeded' });
    expect(types(given(resolved).when(paid).events())).toEqual(['CheckoutPaymentCovered']);
  });
  it('given a quote paid in full, or one nothing reached (an open remainder included), when the payment succeeded, then nothing is recorded', () => {
    const full = then(then(opened, { type: 'MarkSent', simulate: 'exact', txHash: HASH }), { type: 'RecordConfirmations', txHash: HASH, current: 4 });
    expect(fold(full)).toMatchObject({ status: 'completed' });
    given(full).when(paid).then([]);
    given(opened).when(paid).then([]);
    const remainder = decideCheckout({ ...openCmd, checkoutId: 'chk_r', remainder: { amount: '10', priceMinor: 1000 } }, initialCheckoutState, { now: T0 });
    given(remainder).when(paid).then([]);
  });
});

describe('checkout decider: a transfer is late when mined after the quote ended, not when read (0025 addendum, 2026-11-29, lateness at mining)', () => {
  const fold = (events: CheckoutEvent[]) => events.reduce(evolveCheckout, initialCheckoutState);
  const detect = (minedAt: Date | null): CheckoutCommand => ({ type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '100', minedAt: minedAt?.toISOString() ?? null });
  // the quote ends at T0 + 15 min; the watcher reads the block a minute later (a worker restarted)
  const readLate = at(16 * 60_000);

  it('given an open quote past its end (its expiry waiting for the watcher), when a transfer mined inside it is read, then it counts on time: confirming, no review; mined_at recorded', () => {
    const events = given(opened, readLate).when(detect(at(14 * 60_000))).thenIdempotent();
    expect(events.map((e) => e.type)).toEqual(['CheckoutTransferDetected']);
    expect(events[0].data).toMatchObject({ tx_hash: HASH, received_amount: '100', mined_at: at(14 * 60_000).toISOString() });
    expect(fold([...opened, ...events])).toMatchObject({ status: 'confirming', reviewReason: null });
  });

  it('given an open quote past its end, when a transfer mined after the end is read, then it is late: the quote ends, needs_review (late)', () => {
    const events = given(opened, readLate).when(detect(at(15 * 60_000 + 1000))).events();
    expect(events.map((e) => e.type)).toEqual(['CheckoutExpired', 'CheckoutTransferDetected', 'CheckoutNeedsReview']);
    expect(fold([...opened, ...events])).toMatchObject({ status: 'needs_review', reviewReason: 'late' });
  });

  it('given an open quote past its end, when a transfer is read without its block time (an older report), then it is judged when read: late', () => {
    expect(given(opened, readLate).when(detect(null)).events().map((e) => e.type)).toEqual(['CheckoutExpired', 'CheckoutTransferDetected', 'CheckoutNeedsReview']);
  });

  it('given a live quote, when a block is stamped after the service saw it (a miner clock ahead), then it is judged when seen: in time', () => {
    const events = given(opened, at(10 * 60_000)).when(detect(at(20 * 60_000))).events();
    expect(events.map((e) => e.type)).toEqual(['CheckoutTransferDetected']);
  });

  it('given a quote that ended already (its expiry fired), when a transfer mined inside it is read, then it is late: the end was decided', () => {
    const expired = [...opened, ...given(opened, at(15 * 60_000)).when({ type: 'ExpireCheckout' }).events()];
    expect(fold(expired).status).toBe('expired');
    const events = given(expired, readLate).when(detect(at(14 * 60_000))).events();
    expect(events.map((e) => e.type)).toEqual(['CheckoutTransferDetected', 'CheckoutNeedsReview']);
  });
});

describe('checkout decider: the remainder wait runs from the short transfer itself, not its confirmation (decision 0009, addendum 2026-11-30)', () => {
  const fold = (events: CheckoutEvent[]) => events.reduce(evolveCheckout, initialCheckoutState);
  const m = (minutes: number, seconds = 0) => at(minutes * 60_000 + seconds * 1000);
  const iso = (minutes: number, seconds = 0) => m(minutes, seconds).toISOString();
  const awaiting = (events: CheckoutEvent[]) => events.find((e) => e.type === 'CheckoutAwaitingCustomer')?.data;
  it('given a short transfer marked sent at 00:05, when it is confirmed seconds later, then the quote ends 15 minutes after the transfer (00:20), not after the confirmation', () => {
    const confirming = [...opened, ...sent('underpaid', m(5))];
    expect(confirming.at(-1)).toMatchObject({ type: 'CheckoutTransferDetected', data: { detected_at: iso(5) } });
    const events = given(confirming, m(5, 6)).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events();
    expect(types(events).slice(-1)).toEqual(['CheckoutAwaitingCustomer']);
    expect(awaiting(events)).toEqual({ checkout_id: 'chk_1', received_amount: '90', remaining_amount: '10', expires_at: iso(20) });
  });
  it('given a live transfer mined at 00:07 and read at 00:08, then the quote ends 15 minutes after its block (00:22); a block stamped after it was read counts from the reading', () => {
    const live = decideCheckout({ ...openCmd, simulated: false }, initialCheckoutState, { now: T0 });
    const mined = given(live, m(8)).when({ type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '90', minedAt: iso(7) }).events();
    expect(awaiting(given([...live, ...mined], m(9)).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events())).toMatchObject({ expires_at: iso(22) });
    const ahead = given(live, m(8)).when({ type: 'DetectTransfer', txHash: HASH, network: 'ethereum', amount: '90', minedAt: iso(8, 30) }).events();
    expect(awaiting(given([...live, ...ahead], m(9)).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events())).toMatchObject({ expires_at: iso(23) });
  });
  it('given a short transfer at 00:05, when it is confirmed only at 00:25 (after transfer + wait), then the quote has ended at once: awaiting_customer until 00:20, then expired in the same decision; the timer finds nothing to do', () => {
    const confirming = [...opened, ...sent('underpaid', m(5))];
    const events = given(confirming, m(25)).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events();
    expect(types(events).slice(-2)).toEqual(['CheckoutAwaitingCustomer', 'CheckoutExpired']);
    expect(awaiting(events)).toMatchObject({ expires_at: iso(20) });
    expect(events.at(-1)).toEqual({ type: 'CheckoutExpired', data: { checkout_id: 'chk_1', payment_id: 'pmt_1', received_amount: '90' } });
    const after = fold([...confirming, ...events]);
    expect(after).toMatchObject({ status: 'expired', expiresAt: iso(20) });
    given([...confirming, ...events], m(25)).when({ type: 'ExpireCheckout' }).then([]);
    // exactly at the end: ended too
    expect(types(given(confirming, m(20)).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events()).slice(-2)).toEqual(['CheckoutAwaitingCustomer', 'CheckoutExpired']);
  });
  it('given a remainder checkout opened at 00:30, when a second short transfer reaches it at 00:40, then its quote ends at 00:55 if confirmed in time, and at once if confirmed after 00:55', () => {
    const remainderOpened = decideCheckout({ ...openCmd, checkoutId: 'chk_1', remainder: { amount: '10', priceMinor: 1_000 } }, initialCheckoutState, { now: m(30) });
    const short = [...remainderOpened, ...given(remainderOpened, m(40)).when({ type: 'MarkSent', simulate: 'underpaid', txHash: HASH2 }).events()];
    const inTime = given(short, m(40, 6)).when({ type: 'RecordConfirmations', txHash: HASH2, current: 4 }).events();
    expect(types(inTime).slice(-1)).toEqual(['CheckoutAwaitingCustomer']);
    expect(awaiting(inTime)).toMatchObject({ remaining_amount: '1', expires_at: iso(55) });
    const late = given(short, m(56)).when({ type: 'RecordConfirmations', txHash: HASH2, current: 4 }).events();
    expect(types(late).slice(-2)).toEqual(['CheckoutAwaitingCustomer', 'CheckoutExpired']);
  });
  it('given a checkout awaiting the rest, when a top-up short transfer at 00:10 is confirmed, then the quote ends 15 minutes after that latest transfer (00:25)', () => {
    const confirming = [...opened, ...sent('underpaid', m(1))];
    const first = [...confirming, ...given(confirming, m(1, 6)).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events()];
    expect(fold(first)).toMatchObject({ status: 'awaiting_customer', expiresAt: iso(16) });
    const topUp = [...first, ...given(first, m(10)).when({ type: 'DetectTransfer', txHash: HASH2, network: 'ethereum', amount: '5' }).events()];
    expect(awaiting(given(topUp, m(10, 6)).when({ type: 'RecordConfirmations', txHash: HASH2, current: 4 }).events())).toMatchObject({ received_amount: '95', expires_at: iso(25) });
  });
  it('an underpaid end already past when decided schedules no quote timer in the past; one ahead schedules it at the end', () => {
    const biz = decideCheckout({ ...openCmd, details: { business_id: 'biz_1', email: null, country: null, success_url: null, replaces: null, simulate: null } }, initialCheckoutState, { now: T0 });
    const confirming = [...biz, ...given(biz, m(5)).when({ type: 'MarkSent', simulate: 'underpaid', txHash: HASH }).events()];
    const late = given(confirming, m(25)).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events();
    const lateAwaiting = late.find((e) => e.type === 'CheckoutAwaitingCustomer')!;
    const before = fold([...confirming, ...late.slice(0, late.indexOf(lateAwaiting) + 1)]);
    expect(timersForCheckoutEvent(lateAwaiting, before, m(25).toISOString())).toEqual([]);
    const inTime = given(confirming, m(5, 6)).when({ type: 'RecordConfirmations', txHash: HASH, current: 4 }).events();
    const inTimeAwaiting = inTime.find((e) => e.type === 'CheckoutAwaitingCustomer')!;
    expect(timersForCheckoutEvent(inTimeAwaiting, fold([...confirming, ...inTime]), m(5, 6).toISOString()).map((t) => t.dueAt)).toEqual([m(20)]);
  });
});
