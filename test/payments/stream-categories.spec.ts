import { assertDistinctCategories } from '@lib/eventstore';
import { CHECKOUT_STREAM, PAYMENT_REFERENCE_STREAM, PAYMENT_STREAM, PAYMENT_STREAM_CATEGORIES, isCheckoutId, isPaymentId } from '@lib/payments';
import { ALL_STREAM_CATEGORIES } from '@lib/wiring';

describe('payment stream names, built and parsed by the payments categories only (decision 0014)', () => {
  it('payment-<pmt_id> and checkout-<chk_id>: build, parse, and own nothing else', () => {
    expect(PAYMENT_STREAM.stream('pmt_abc123')).toBe('payment-pmt_abc123');
    expect(PAYMENT_STREAM.parse('payment-pmt_abc123')).toBe('pmt_abc123');
    expect(CHECKOUT_STREAM.stream('chk_abc123')).toBe('checkout-chk_abc123');
    expect(CHECKOUT_STREAM.parse('checkout-chk_abc123')).toBe('chk_abc123');
    for (const other of ['checkout-chk_1', 'payment-seed1234', 'payment-reference-biz_1-' + 'a'.repeat(40), 'payment_reference-biz_1-' + 'a'.repeat(40), 'payments-pmt_1']) {
      expect(PAYMENT_STREAM.owns(other)).toBe(false);
    }
    expect(CHECKOUT_STREAM.owns('payment-pmt_1')).toBe(false);
    expect(() => PAYMENT_STREAM.stream('pmt_a-b')).toThrow();
    expect([isPaymentId('pmt_abc'), isPaymentId('pmt_'), isPaymentId('chk_abc'), isCheckoutId('chk_abc'), isCheckoutId('chk_a b')]).toEqual([true, false, false, true, false]);
  });

  it('the reference streams are payment_reference-<business>-<40 hex>, no longer under payment-', () => {
    const stream = PAYMENT_REFERENCE_STREAM.stream(`biz_1-${'0f'.repeat(20)}`);
    expect(stream).toBe(`payment_reference-biz_1-${'0f'.repeat(20)}`);
    expect(PAYMENT_STREAM.owns(stream)).toBe(false);
    expect(PAYMENT_REFERENCE_STREAM.owns('payment-pmt_1')).toBe(false);
  });

  it('the composition root lists the payments categories, none a prefix of another', () => {
    expect(PAYMENT_STREAM_CATEGORIES).toEqual([PAYMENT_STREAM, CHECKOUT_STREAM, PAYMENT_REFERENCE_STREAM]);
    expect(ALL_STREAM_CATEGORIES).toEqual(expect.arrayContaining([...PAYMENT_STREAM_CATEGORIES]));
    expect(() => assertDistinctCategories(ALL_STREAM_CATEGORIES)).not.toThrow();
    expect(new Set(ALL_STREAM_CATEGORIES.map((c) => c.name)).size).toBe(ALL_STREAM_CATEGORIES.length);
  });
});
