import { CHECKOUT_STREAM, CreatePaymentCommand, PAYMENT_STREAM, afterRefusal } from '@lib/payments';
import { committedHead } from '../support/log-head';
import { storePerSuite } from '../support/fixtures';
import { paymentsUseCases, simulatedOpenCheckout } from './support/use-cases';

/**
 * A claim the checkout took while its payment's success was being recorded (0025 addendum,
 * 2026-11-29): the claim handler read the payment unpaid, so the checkout appended CheckoutClaimed
 * (needs_review), and the payment, succeeded meanwhile, refuses RecordClaim with payment_paid. The
 * checkout must not stay in review for a claim its payment will never take: the process manager
 * ends the review (`afterRefusal`), failed with payment_succeeded, once, whoever settles it.
 */
describe('a claim raced past its payment’s success', () => {
  const opened = storePerSuite('embedded');
  const business = { id: 'bus_claimrace', simulated: true };
  const MIN = 60_000;

  it('afterRefusal: RecordClaim refused with payment_paid → ResolveReview on the claimed checkout; other refusals of it → nothing; a refused method → FailCheckout', () => {
    const base = { id: 'r1', causationId: 'e1', stream: 'payment-pmt_1', target: 'payment' as const, paymentId: 'pmt_1' };
    const claim = { ...base, command: { type: 'RecordClaim' as const, checkoutId: 'chk_1', txHash: '0x' + 'ab'.repeat(32), network: 'ethereum' as const } };
    expect(afterRefusal(claim, 'payment_paid')).toEqual({ checkoutId: 'chk_1', command: { type: 'ResolveReview', resolution: 'payment_succeeded', counted: false } });
    expect(afterRefusal(claim, 'already_claimed')).toBeNull();
    const select = { ...base, command: { type: 'SelectCardMethod' as const, checkoutId: 'chk_2', quotedMinor: 10_000, country: null } };
    expect(afterRefusal(select, 'payment_paid')).toEqual({ checkoutId: 'chk_2', command: { type: 'FailCheckout', failureCode: 'payment_paid' } });
  });

  it('the claimed checkout leaves review (failed, payment_succeeded); the payment records nothing of it; a second settler appends nothing', async () => {
    const app = paymentsUseCases(opened.store, opened.db);
    const t0 = Date.now();
    const at = (ms: number) => ({ now: new Date(t0 + ms), metadata: {} });
    const decide = async (checkoutId: string, command: Parameters<typeof app.streams.decideCheckout>[1], ms: number) => {
      const decided = await app.streams.decideCheckout(checkoutId, command, at(ms));
      await app.process.settle(decided.appended);
      return decided;
    };
    const { paymentId } = await app.createPayment.execute(new CreatePaymentCommand(business, { amount: 10_000, currency: 'USD' }));
    const first = 'chk_claimrace00000000000001';
    const second = 'chk_claimrace00000000000002';
    const hash = '0x' + 'cd'.repeat(32);
    await decide(first, simulatedOpenCheckout(business.id, first, paymentId), 0);
    await decide(first, { type: 'ExpireCheckout' }, 16 * MIN);
    await decide(second, simulatedOpenCheckout(business.id, second, paymentId), 17 * MIN);
    await decide(second, { type: 'DetectTransfer', txHash: hash, network: 'ethereum', amount: '100' }, 18 * MIN);
    await decide(second, { type: 'RecordConfirmations', txHash: hash, current: 4 }, 19 * MIN);
    expect(await app.streams.payment(paymentId)).toMatchObject({ status: 'succeeded' });
    const paymentEvents = (await opened.store.readStream(PAYMENT_STREAM.stream(paymentId))).map((e) => e.type);

    // the claim handler read the payment before its success: the checkout takes the claim
    const claimed = await app.streams.decideCheckout(first, { type: 'ClaimCheckout', txHash: '0x' + 'ef'.repeat(32), paymentSucceeded: false }, at(19 * MIN));
    expect(claimed.appended.map((e) => e.event.type)).toEqual(['CheckoutClaimed']);
    await app.process.settle(claimed.appended);

    expect(await app.streams.checkout(first)).toMatchObject({ status: 'failed', failureCode: 'payment_succeeded', reviewReason: 'claimed' });
    const checkoutEvents = await opened.store.readStream(CHECKOUT_STREAM.stream(first));
    expect(checkoutEvents.at(-1)).toMatchObject({ type: 'CheckoutReviewResolved', data: { resolution: 'payment_succeeded', status: 'failed', failure_code: 'payment_succeeded' } });
    expect((await opened.store.readStream(PAYMENT_STREAM.stream(paymentId))).map((e) => e.type)).toEqual(paymentEvents);

    // another process (the backstop) settles the same claim again: nothing new
    const head = await committedHead(opened.store);
    await paymentsUseCases(opened.store, opened.db).process.settle(claimed.appended);
    expect(await committedHead(opened.store)).toEqual(head);
  });
});
