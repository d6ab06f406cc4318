import { randomUUID } from 'node:crypto';
import { RecordedEvent } from '@lib/eventstore';
import { apiEventId, businessEventSource, deliveryId, paymentEventSource } from '../../libs/webhooks/src';
import { MIN, World, hash, iso, oneTransactionTwoCheckouts } from '../payments/read/fixtures';

const recorded = (stream: string, type: string, data: unknown, revision: number): RecordedEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: { actor: { kind: 'system', id: null } },
  stream,
  revision,
  position: { commit: 1n, prepare: BigInt(revision + 1) },
  recordedAt: new Date(Date.UTC(2030, 0, 1, 0, 0, revision)),
});

describe('API event sources and ids', () => {
  it('derives evt_ and dlv_ ids deterministically from the domain event id (and the endpoint)', () => {
    const id = randomUUID();
    expect(apiEventId(id, 'payment.succeeded')).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(apiEventId(id, 'payment.succeeded')).toBe(apiEventId(id, 'payment.succeeded'));
    expect(new Set([apiEventId(id, 'payment.succeeded'), apiEventId(id, 'payment.failed'), apiEventId(id, 'payment.succeeded', 1), apiEventId(randomUUID(), 'payment.succeeded')]).size).toBe(4);
    const evt = apiEventId(id, 'payment.succeeded');
    expect(deliveryId(evt, 'whk_a')).toMatch(/^dlv_[0-9A-Za-z]{24}$/);
    expect(deliveryId(evt, 'whk_a')).toBe(deliveryId(evt, 'whk_a'));
    expect(deliveryId(evt, 'whk_a')).not.toBe(deliveryId(evt, 'whk_b'));
  });

  it('business streams: business.created with the business object; key events change nothing shown, so no event', () => {
    const stream = 'business-biz_1';
    const events = [
      recorded(stream, 'BusinessCreated', { business_id: 'biz_1', name: 'Shop', simulated: false, website: 'https://shop.example', support_email: null }, 0),
      recorded(stream, 'ApiKeyCreated', { key_id: 'key_1', business_id: 'biz_1', kind: 'secret', mode: 'live', secret_hash: 'a'.repeat(64), prefix: 'sk_live_', last4: 'abcd', name: null, permissions: null }, 1),
      recorded(stream, 'ApiKeyRevoked', { key_id: 'key_1' }, 2),
      recorded(stream, 'SomethingNewer', {}, 3),
    ];
    let view = null;
    const out = [];
    for (const event of events) {
      expect(businessEventSource.accepts(event)).toBe(true);
      const before = view;
      view = JSON.parse(JSON.stringify(businessEventSource.reduce!(view, event)));
      out.push(...businessEventSource.map(event, { before, after: view }));
    }
    expect(out).toEqual([
      {
        type: 'business.created',
        subject: { kind: 'business', id: 'biz_1' },
        data: expect.objectContaining({ kind: 'business', id: 'biz_1', name: 'Shop', website: 'https://shop.example', simulated: false, created_at: '2030-01-01T00:00:00.000Z' }),
        business_id: 'biz_1',
        mode: 'live',
      },
    ]);
    expect(businessEventSource.accepts(recorded('payment-pmt_1', 'PaymentCreated', {}, 0))).toBe(false);
  });

  it('business streams: a suspension and a reinstatement are business.updated with the business object (status, suspended_at)', () => {
    const stream = 'business-biz_3';
    const events = [
      recorded(stream, 'BusinessCreated', { business_id: 'biz_3', name: 'Shop', simulated: false, website: null, support_email: null }, 0),
      recorded(stream, 'BusinessSuspended', { business_id: 'biz_3', suspended_at: '2030-01-01T00:00:00.500Z', reason: 'Chargebacks' }, 1),
      recorded(stream, 'BusinessReinstated', { business_id: 'biz_3' }, 2),
    ];
    let view = null;
    const out = [];
    for (const event of events) {
      const before = view;
      view = JSON.parse(JSON.stringify(businessEventSource.reduce!(view, event))); // as stored
      out.push(...businessEventSource.map(event, { before, after: view }));
    }
    expect(out.map((e) => [e.type, e.data.status, e.data.suspended_at, e.data.updated_at])).toEqual([
      ['business.created', 'active', null, '2030-01-01T00:00:00.000Z'],
      ['business.updated', 'suspended', '2030-01-01T00:00:00.500Z', '2030-01-01T00:00:01.000Z'],
      ['business.updated', 'active', null, '2030-01-01T00:00:02.000Z'],
    ]);
    expect(out[1]).toMatchObject({ subject: { kind: 'business', id: 'biz_3' }, business_id: 'biz_3', mode: 'live' });
    expect(JSON.stringify(out)).not.toContain('Chargebacks'); // the operator's reason is not the business's to see
  });

  it('business streams: a change to what the business object shows is business.updated', () => {
    const created = recorded('business-biz_2', 'BusinessCreated', { business_id: 'biz_2', name: 'Old', simulated: true, website: null, support_email: null }, 0);
    const before = JSON.parse(JSON.stringify(businessEventSource.reduce!(null, created)));
    // as a future event that renames the business would leave the view
    const after = { ...before, name: 'New', updated_at: '2030-01-01T00:00:09.000Z' };
    expect(businessEventSource.map(recorded('business-biz_2', 'BusinessRenamed', {}, 1), { before, after })).toEqual([
      expect.objectContaining({ type: 'business.updated', mode: 'test', data: expect.objectContaining({ name: 'New', updated_at: '2030-01-01T00:00:09.000Z' }) }),
    ]);
    expect(businessEventSource.map(recorded('business-biz_2', 'X', {}, 1), { before, after: { ...before, updated_at: '2030-01-01T00:00:10.000Z' } })).toEqual([]);
  });
});

describe('payment event source', () => {
  /** A payment that succeeded on chk_1, then 5 more sent to chk_1's address on `network` and confirmed. */
  const succeededThenPaidAgain = (network: 'ethereum' | 'polygon'): World => {
    const w = new World();
    w.at(0).create('pmt_1');
    w.at(MIN).open('chk_1', 'pmt_1');
    w.at(2 * MIN).send('chk_1', 'exact', hash(1));
    w.at(3 * MIN).confirm('chk_1', hash(1));
    w.at(10 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(2), network, amount: '5' });
    w.at(11 * MIN).confirm('chk_1', hash(2));
    return w;
  };

  /** What the payment event source sends for `w`'s events, each mapped from the view as stored. */
  const deliveries = (w: World) => {
    const source = paymentEventSource({ checkoutBaseUrl: 'https://pay.example.test/c' });
    let view = null;
    const out: { type: string; event: string; data: Record<string, unknown> }[] = [];
    for (const event of w.recorded().filter((e) => source.accepts(e))) {
      const before = view;
      view = JSON.parse(JSON.stringify(source.reduce!(view, event))); // as stored
      out.push(...source.map(event, { before, after: view }).map((d) => ({ type: d.type, event: event.type, data: d.data })));
    }
    return out;
  };

  /** The [API event type, domain event type] of each of `out` from the first that `first` picks. */
  const pairsFrom = (out: ReturnType<typeof deliveries>, first: (delivery: ReturnType<typeof deliveries>[number]) => boolean) =>
    out.slice(out.findIndex(first)).map((e) => [e.type, e.event]);

  it('a remainder paid: payment.succeeded alone, carrying the `remainder_paid` entry — no payment.updated of the state between the two events of that append (money audit L1, 2026-11-29)', () => {
    const w = new World();
    w.at(0).create('pmt_1');
    w.at(MIN).open('chk_1', 'pmt_1');
    w.at(2 * MIN).send('chk_1', 'underpaid', hash(1));
    w.at(3 * MIN).confirm('chk_1', hash(1));
    w.at(20 * MIN).checkout('chk_1', { type: 'ExpireCheckout' });
    w.at(21 * MIN).payment('pmt_1', { type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true });
    w.at(22 * MIN).send('chk_2', 'exact', hash(2));
    w.at(23 * MIN).confirm('chk_2', hash(2));
    const out = deliveries(w);
    expect(pairsFrom(out, (e) => e.event === 'PaymentRemainderRequested')).toEqual([
      ['payment.updated', 'PaymentRemainderRequested'],
      ['payment.updated', 'PaymentTransferDetected'],
      ['payment.succeeded', 'PaymentSucceeded'],
    ]);
    const last = out.at(-1)!.data as { status: string; amount_received: number; events: { type: string }[] };
    expect([last.status, last.amount_received]).toEqual(['succeeded', 10_000]);
    expect(last.events.map((e) => e.type).slice(-2)).toEqual(['remainder_paid', 'succeeded']);
    // no delivery shows the remainder paid on a payment still underpaid
    expect(out.filter((e) => (e.data as { status: string; events: { type: string }[] }).status === 'underpaid' && (e.data as { events: { type: string }[] }).events.some((x) => x.type === 'remainder_paid'))).toEqual([]);
  });

  it('a transfer withdrawn by a reorganisation: payment.updated with the `withdrawn` entry and the amount back to 0, as it was told of the detection (chain audit M1, 2026-11-29)', () => {
    const w = new World();
    w.at(0).create('pmt_1');
    w.at(MIN).open('chk_1', 'pmt_1');
    w.at(2 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(1), network: 'ethereum', amount: '44' });
    w.at(3 * MIN).checkout('chk_1', { type: 'WithdrawTransfer', txHash: hash(1) });
    const out = deliveries(w);
    expect(pairsFrom(out, (e) => e.event === 'PaymentTransferDetected')).toEqual([
      ['payment.updated', 'PaymentTransferDetected'],
      ['payment.updated', 'PaymentTransferWithdrawn'],
    ]);
    const last = out.at(-1)!.data as { status: string; method: { amount: string; tx_hash: string | null }; events: { type: string }[] };
    expect([last.status, last.method.amount, last.method.tx_hash, last.events.at(-1)!.type]).toEqual(['pending', '0', null, 'withdrawn']);
  });

  it('a second transfer to a completed checkout after success (0025 addendum, 2026-11-28): payment.updated when detected and when counted, no second payment.succeeded', () => {
    const out = deliveries(succeededThenPaidAgain('ethereum'));
    expect(pairsFrom(out, (e) => e.type === 'payment.succeeded')).toEqual([
      ['payment.succeeded', 'PaymentSucceeded'],
      ['payment.updated', 'PaymentTransferDetected'],
      ['payment.updated', 'PaymentTransferCountedAfterSuccess'],
    ]);
    expect(out.at(-1)!.data).toMatchObject({ status: 'succeeded', method: { amount: '105', overpaid_amount: '5' }, settlement: { amount: '105' } });
  });

  it('a card charged on a page left open after the payment succeeded in crypto (0026 addendum, 2026-11-28, later): one payment.updated carrying the `card_charged` entry; a card paid on time gives only payment.succeeded', () => {
    const withCardAttempt = (): World => {
      const w = new World();
      w.at(0).create('pmt_1');
      w.at(MIN).checkout('chk_card', { type: 'OpenCardCheckout', checkoutId: 'chk_card', paymentId: 'pmt_1', linkId: null, simulated: true, currency: 'USD', priceMinor: 10_000, feePayer: 'business', feeRateBps: 100, routes: ['simulated_a'], attemptTtlMs: 10 * MIN });
      w.checkout('chk_card', { type: 'StartCardAttempt', attemptId: 'att_1', processor: 'simulated_a', ref: 'ref_att_1', secureUrl: 'https://pay.example/att_1', expiresAt: iso(11 * MIN) });
      return w;
    };
    const charge = { type: 'RecordCardResult' as const, attemptId: 'att_1', result: { status: 'succeeded' as const, brand: 'visa', last4: '4242', amountMinor: 10_000, currency: 'USD' } };

    const onTime = withCardAttempt();
    onTime.at(2 * MIN).checkout('chk_card', charge);
    const paidByCard = deliveries(onTime);
    expect(paidByCard.slice(paidByCard.findIndex((e) => e.type === 'payment.succeeded')).map((e) => e.type)).toEqual(['payment.succeeded']);
    expect((paidByCard.at(-1)!.data.events as { type: string }[]).map((e) => e.type)).not.toContain('card_charged');

    const late = withCardAttempt();
    late.at(2 * MIN).open('chk_1', 'pmt_1');
    late.at(3 * MIN).send('chk_1', 'exact', hash(1));
    late.at(4 * MIN).confirm('chk_1', hash(1));
    late.at(5 * MIN).checkout('chk_card', charge);
    const out = deliveries(late);
    expect(pairsFrom(out, (e) => e.type === 'payment.succeeded')).toEqual([
      ['payment.succeeded', 'PaymentSucceeded'],
      ['payment.updated', 'PaymentCardCharged'],
    ]);
    expect(out.at(-1)!.data).toMatchObject({ status: 'succeeded', method: { rail: 'crypto' } });
    expect((out.at(-1)!.data.events as { type: string }[]).at(-1)).toMatchObject({ type: 'card_charged', data: { checkout_id: 'chk_card', attempt_id: 'att_1', amount: 10_000, currency: 'USD', review_reason: 'paid_after_close' } });
  });

  it('a transfer to a checkout in review (0025 addendum, 2026-11-28, second): payment.updated when detected, no second payment.needs_review; a claim the chain settles gives payment.succeeded', () => {
    const w = new World();
    w.at(0).create('pmt_1');
    w.at(MIN).open('chk_1', 'pmt_1');
    w.at(2 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(1), network: 'polygon', amount: '100' });
    w.at(3 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(2), network: 'ethereum', amount: '100' });
    w.at(3 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(3), network: 'polygon', amount: '1' });
    w.at(4 * MIN).confirm('chk_1', hash(2));
    const review = deliveries(w);
    expect(pairsFrom(review, (e) => e.type === 'payment.needs_review')).toEqual([
      ['payment.needs_review', 'PaymentNeedsReview'],
      ['payment.updated', 'PaymentTransferDetected'],
      ['payment.updated', 'PaymentTransferDetected'],
    ]);
    expect(review.at(-1)!.data).toMatchObject({ status: 'needs_review' });

    const claimed = new World();
    claimed.at(0).create('pmt_1');
    claimed.at(MIN).open('chk_1', 'pmt_1');
    claimed.at(16 * MIN).checkout('chk_1', { type: 'ExpireCheckout' }).checkout('chk_1', { type: 'ClaimCheckout', txHash: hash(1), paymentSucceeded: false });
    claimed.at(20 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(2), network: 'ethereum', amount: '100' });
    claimed.at(21 * MIN).confirm('chk_1', hash(2));
    expect(deliveries(claimed).slice(1).map((e) => [e.type, e.event])).toEqual([
      ['payment.updated', 'PaymentMethodSelected'],
      ['payment.needs_review', 'PaymentClaimed'],
      ['payment.updated', 'PaymentTransferDetected'],
      ['payment.succeeded', 'PaymentSucceeded'],
    ]);
  });

  it('a transfer that opens a review (another network): payment.needs_review alone, carrying the `detected` entry — no payment.updated of the pending state between the two events of that append (recheck audit N3, 2026-11-29)', () => {
    const w = new World();
    w.at(0).create('pmt_1');
    w.at(MIN).open('chk_1', 'pmt_1');
    w.at(2 * MIN).checkout('chk_1', { type: 'DetectTransfer', txHash: hash(1), network: 'polygon', amount: '100' });
    const out = deliveries(w);
    expect(pairsFrom(out, (e) => e.event === 'PaymentMethodSelected')).toEqual([
      ['payment.updated', 'PaymentMethodSelected'],
      ['payment.needs_review', 'PaymentNeedsReview'],
    ]);
    // the `detected` entry, then the review's own (decision 0012 addendum, 2026-11-30)
    expect((out.at(-1)!.data as { events: { type: string }[] }).events.map((e) => e.type).slice(-2)).toEqual(['detected', 'needs_review']);
  });

  it('a transfer on another network to a completed checkout (0025 addendum, 2026-11-28, second): one payment.updated when detected, the payment stays succeeded', () => {
    const w = succeededThenPaidAgain('polygon');
    const out = deliveries(w);
    expect(pairsFrom(out, (e) => e.type === 'payment.succeeded')).toEqual([
      ['payment.succeeded', 'PaymentSucceeded'],
      ['payment.updated', 'PaymentTransferDetected'],
    ]);
    expect(out.at(-1)!.data).toMatchObject({ status: 'succeeded', method: { amount: '100', overpaid_amount: null } });
  });

  it('one transaction paying two checkouts of the payment (0025 addendum, 2026-11-28, third): a payment.updated for the first output, then payment.needs_review for the second (recheck audit N3, 2026-11-29: no payment.updated of the state between the second detection and its review), carrying both', () => {
    const out = deliveries(oneTransactionTwoCheckouts());
    const from = out.findIndex((e) => e.event === 'PaymentTransferDetected');
    expect(out.slice(from).map((e) => [e.type, e.event])).toEqual([
      ['payment.updated', 'PaymentTransferDetected'],
      ['payment.needs_review', 'PaymentNeedsReview'],
    ]);
    const both = out[from + 1].data as { method: unknown; settlement: unknown; events: { type: string; data: unknown }[] };
    expect(both).toMatchObject({ status: 'needs_review', method: { amount: '100', tx_hash: hash(7) }, settlement: { amount: '100', tx_hash: hash(7) } });
    expect(both.events.filter((e) => e.type === 'detected').map((e) => e.data)).toEqual([
      { amount: '60', network: 'ethereum', tx_hash: hash(7) },
      { amount: '40', network: 'ethereum', tx_hash: hash(7) },
    ]);
  });
});
