import { Logger } from '@nestjs/common';
import { PaymentDomainError, PaymentRates } from '@lib/payments';
import { FixedRates, NoLiveRates, RateQuote, RateSource, RatesUnavailableError, RatesUnavailableReason } from '@lib/rates';
import { rejectedBy } from '../support/thrown';

/**
 * Which source a business quotes from, and what each use case answers without a rate
 * (decision 0020; issue 19 A6): POST /checkouts lists one 503, temporarily_unavailable;
 * request-remainder answers upstream_unavailable when the source gave no usable answer.
 */
describe('PaymentRates', () => {
  let warnings: jest.SpyInstance;
  beforeEach(() => (warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined)));
  afterEach(() => warnings.mockRestore());
  const live = (answer: RateQuote | null | RatesUnavailableReason): RateSource => ({
    quote: () => (typeof answer === 'string' ? Promise.reject(new RatesUnavailableError(answer, `test: ${answer}`)) : Promise.resolve(answer)),
  });
  const quote: RateQuote = { rateMinorPerCoin: 6_012_345, source: 'coinbase-exchange:BTC-USD', at: '2026-11-26T22:28:21.511Z' };
  const rates = (source: RateSource) => new PaymentRates({ simulated: new FixedRates(), live: source });
  const code = async (promise: Promise<unknown>) => {
    const error = await rejectedBy(PaymentDomainError, promise);
    return [error.code, error.status];
  };

  it('a simulated business quotes from the fixed table, a live one from the live source', async () => {
    await expect(rates(live(quote)).forCheckout({ simulated: true }, 'BTC', 'USD')).resolves.toMatchObject({ rateMinorPerCoin: 6_000_000, source: 'fixed' });
    await expect(rates(live(quote)).forCheckout({ simulated: false }, 'BTC', 'USD')).resolves.toEqual(quote);
    await expect(rates(live('unreachable')).forRemainder({ simulated: true }, 'BTC', 'USD')).resolves.toMatchObject({ source: 'fixed' });
  });

  it('POST /checkouts: asset_unavailable for a pair not offered, 503 temporarily_unavailable for every other lack of a rate', async () => {
    expect(await code(rates(live(null)).forCheckout({ simulated: false }, 'BTC', 'USD'))).toEqual(['asset_unavailable', 400]);
    for (const reason of ['unreachable', 'malformed', 'stale', 'off'] as const) {
      expect([reason, ...(await code(rates(live(reason)).forCheckout({ simulated: false }, 'BTC', 'USD')))]).toEqual([reason, 'temporarily_unavailable', 503]);
    }
    expect(await code(rates(new NoLiveRates()).forCheckout({ simulated: false }, 'USDC', 'USD'))).toEqual(['temporarily_unavailable', 503]);
  });

  it('request-remainder: upstream_unavailable when the source gave no usable answer, temporarily_unavailable otherwise', async () => {
    expect(await code(rates(live('unreachable')).forRemainder({ simulated: false }, 'BTC', 'USD'))).toEqual(['upstream_unavailable', 503]);
    expect(await code(rates(live('malformed')).forRemainder({ simulated: false }, 'BTC', 'USD'))).toEqual(['upstream_unavailable', 503]);
    expect(await code(rates(live('stale')).forRemainder({ simulated: false }, 'BTC', 'USD'))).toEqual(['temporarily_unavailable', 503]);
    expect(await code(rates(new NoLiveRates()).forRemainder({ simulated: false }, 'BTC', 'USD'))).toEqual(['temporarily_unavailable', 503]);
    expect(await code(rates(live(null)).forRemainder({ simulated: false }, 'BTC', 'USD'))).toEqual(['temporarily_unavailable', 503]);
    // each refusal for lack of a rate is logged with its reason
    expect(warnings.mock.calls.map(([message]) => String(message).split(':')[0])).toEqual(['no rate (unreachable)', 'no rate (malformed)', 'no rate (stale)', 'no rate (off)']);
  });

  it('other errors are not turned into answers', async () => {
    const broken: RateSource = { quote: () => Promise.reject(new TypeError('a bug')) };
    await expect(rates(broken).forCheckout({ simulated: false }, 'BTC', 'USD')).rejects.toThrow(TypeError);
  });
});
