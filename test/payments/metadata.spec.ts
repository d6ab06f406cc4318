import { PaymentDomainError, checkMetadata, decidePayment, evolvePayment, foldPayment, mergeMetadata, PaymentState } from '../../libs/payments/src/domain';
import { Harness } from './harness';

const T0 = new Date('2025-01-01T00:00:00.000Z');
const created = (metadata: Record<string, string>): PaymentState =>
  foldPayment(
    decidePayment(
      {
        type: 'CreatePayment', paymentId: 'pmt_1', amount: 10_000, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId: null, expiresAt: null,
        details: { business_id: 'biz_1', mode: 'test', code: 'c1', description: null, reference: null, metadata, customer_id: null, customer_email: null, success_url: null, cancel_url: null },
      },
      { status: 'none' },
      { now: T0 },
    ),
  );

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof PaymentDomainError) return { code: error.code, field: error.field };
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('metadata rules (spec §8) and PATCH merge (§4)', () => {
  it('checks keys, values and counts, naming the field', () => {
    expect(checkMetadata({ order: '1', 'a.b-c_d': 'x' })).toEqual({ order: '1', 'a.b-c_d': 'x' });
    expect(checkMetadata({ gone: '' })).toEqual({});
    expect(refusal(() => checkMetadata({ 'has space': 'x' }))).toEqual({ code: 'invalid_request', field: 'metadata.has space' });
    expect(refusal(() => checkMetadata({ ['k'.repeat(41)]: 'x' }))).toEqual({ code: 'invalid_request', field: `metadata.${'k'.repeat(41)}` });
    expect(refusal(() => checkMetadata({ k: 'v'.repeat(501) }))).toEqual({ code: 'invalid_request', field: 'metadata.k' });
    // characters, not UTF-16 units (audit, 2026-11-29): 500 emoji fit, 501 do not
    expect(checkMetadata({ k: '😀'.repeat(500) })).toEqual({ k: '😀'.repeat(500) });
    expect(refusal(() => checkMetadata({ k: '😀'.repeat(501) }))).toEqual({ code: 'invalid_request', field: 'metadata.k' });
    expect(refusal(() => checkMetadata({ k: 5 }))).toEqual({ code: 'invalid_request', field: 'metadata.k' });
    expect(refusal(() => checkMetadata({ id: 'x' }))).toEqual({ code: 'invalid_request', field: 'metadata.id' });
    expect(refusal(() => checkMetadata({ 'service.x': 'x' }))).toEqual({ code: 'invalid_request', field: 'metadata.service.x' });
    expect(refusal(() => checkMetadata(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']))))).toEqual({ code: 'invalid_request', field: 'metadata' });
    expect(refusal(() => checkMetadata(['a']))).toEqual({ code: 'invalid_request', field: 'metadata' });
  });

  it('merges by key; empty string or null removes; null clears; the result is limited to 20 keys', () => {
    expect(mergeMetadata({ a: '1', b: '2' }, { b: null, c: '3', a: '' })).toEqual({ c: '3' });
    expect(mergeMetadata({ a: '1' }, null)).toEqual({});
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v']));
    expect(refusal(() => mergeMetadata(twenty, { extra: 'v' }))).toEqual({ code: 'invalid_request', field: 'metadata' });
    expect(mergeMetadata(twenty, { k0: null, extra: 'v' })).toHaveProperty('extra', 'v');
  });

  it('UpdateMetadata records the merged result once; the same patch again changes nothing', () => {
    const state = created({ a: '1' });
    const events = decidePayment({ type: 'UpdateMetadata', metadata: { b: '2' } }, state, { now: T0 });
    expect(events).toEqual([{ type: 'PaymentMetadataUpdated', data: { metadata: { a: '1', b: '2' } } }]);
    const after = events.reduce(evolvePayment, state);
    expect(decidePayment({ type: 'UpdateMetadata', metadata: { b: '2' } }, after, { now: T0 })).toEqual([]);
  });
});

describe('a new checkout sets the payment’s earlier quotes aside (§4 supersede)', () => {
  it('opening a second checkout supersedes the first through the process manager', () => {
    const h = new Harness(T0);
    h.payment('pmt_1', { type: 'CreatePayment', paymentId: 'pmt_1', amount: 10_000, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId: null, expiresAt: null });
    const open = (checkoutId: string) =>
      h.checkout(checkoutId, {
        type: 'OpenCheckout', checkoutId, paymentId: 'pmt_1', linkId: null, rail: 'crypto', simulated: true, asset: 'USDC', network: 'ethereum',
        address: '0x' + '11'.repeat(20), rateMinorPerCoin: 100, currency: 'USD', priceMinor: 10_000, feePayer: 'business', feeRateBps: 100, remainder: null, quoteTtlMs: 900_000,
      });
    open('chk_1');
    open('chk_2');
    const first = h.checkoutState('chk_1');
    const second = h.checkoutState('chk_2');
    expect(first.status !== 'none' && first.superseded).toBe(true);
    expect(second.status !== 'none' && second.superseded).toBe(false);
    expect(h.replay()).toBe(0);
  });
});
