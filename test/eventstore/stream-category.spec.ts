import { assertDistinctCategories, streamCategory } from '@lib/eventstore';

describe('stream categories', () => {
  const payment = streamCategory('payment', /pmt_[0-9A-Za-z]+/);

  it('builds and parses names through one declaration; other streams are not its own', () => {
    expect(payment.stream('pmt_1')).toBe('payment-pmt_1');
    expect(payment.parse('payment-pmt_1')).toBe('pmt_1');
    expect(payment.owns('payment-pmt_1')).toBe(true);
    for (const other of ['checkout-chk_1', 'payment-', 'payment-reference-biz_1-ab', 'paymentx-pmt_1', 'payment-pmt_1-x']) expect(payment.parse(other)).toBeNull();
    expect(() => payment.stream('chk_1')).toThrow('not one of its ids');
    expect(() => streamCategory('Payment', /x/)).toThrow();
  });

  it('refuses a category whose prefix starts another one, or a name declared twice', () => {
    expect(() => assertDistinctCategories([payment, streamCategory('payment-reference'.replace('-', '_'), /x/)])).not.toThrow();
    expect(() => assertDistinctCategories([payment, streamCategory('checkout', /chk_\w+/)])).not.toThrow();
    expect(() => assertDistinctCategories([payment, streamCategory('payment', /x/)])).toThrow('declared twice');
  });
});
