import {
  minorToDecimal,
  buildBreakdown,
  buildReporting,
  customerFeeFor,
  divide,
  FIAT,
  feeFromBps,
  fiatExponent,
  fiatValueOf,
  formatCryptoAmount,
  MAX_CRYPTO_UNITS,
  MoneyError,
  MoneyErrorCode,
  overpaid,
  parseCryptoAmount,
  parsePositiveCryptoAmount,
  percentOf,
  quoteCryptoAmount,
  receivedValueMinor,
  remaining,
  simulatedOverpaid,
  simulatedUnderpaid,
  validateCardPrice,
  validatePaymentAmount,
} from '../../libs/money/src';
import { thrownBy } from '../support/thrown';

/** Seeded PRNG (mulberry32): the same 10,000 cases every run, so a failure reproduces. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next32 = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  /** A random BigInt of up to `bits` bits. */
  const bits = (count: number): bigint => {
    let value = 0n;
    for (let i = 0; i < count; i += 32) value = (value << 32n) | BigInt(next32());
    return value & ((1n << BigInt(count)) - 1n);
  };
  /** Uniform-enough BigInt in [min, max]. */
  const between = (min: bigint, max: bigint): bigint => {
    const span = max - min + 1n;
    return min + (bits(span.toString(2).length + 32) % span);
  };
  const pick = <T>(items: readonly T[]): T => items[next32() % items.length];
  return { next32, bits, between, pick };
}

const refusal = (run: () => unknown): MoneyError => thrownBy(MoneyError, run);

function expectRefused(run: () => unknown, code: MoneyErrorCode): void {
  expect(refusal(run).code).toBe(code);
}

const COIN_DECIMALS = [6, 8, 9, 18] as const; // USDC/USDT, BTC, SOL, ETH

/** Property loops record counterexamples and assert once: fast, and the failure names the case. */
function counterexamples() {
  const found: string[] = [];
  return {
    check(ok: boolean, describeCase: () => string) {
      if (!ok && found.length < 10) found.push(describeCase());
    },
    expectNone() {
      expect(found).toEqual([]);
    },
  };
}

function thrownCode(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof MoneyError ? error.code : String(error);
  }
}

describe('parseCryptoAmount / formatCryptoAmount', () => {
  const good: Array<[string, number, bigint, string]> = [
    // text, decimals, units, canonical
    ['0', 6, 0n, '0'],
    ['0.0', 6, 0n, '0'],
    ['1', 6, 1_000_000n, '1'],
    ['10.5', 6, 10_500_000n, '10.5'],
    ['10.50', 6, 10_500_000n, '10.5'],
    ['0.000001', 6, 1n, '0.000001'],
    ['1.000000', 6, 1_000_000n, '1'],
    ['123456789.123456', 6, 123_456_789_123_456n, '123456789.123456'],
    ['0.00000001', 8, 1n, '0.00000001'],
    ['21000000', 8, 2_100_000_000_000_000n, '21000000'],
    ['0.12345678', 8, 12_345_678n, '0.12345678'],
    ['0.000000001', 9, 1n, '0.000000001'],
    ['1.5', 9, 1_500_000_000n, '1.5'],
    ['0.000000000000000001', 18, 1n, '0.000000000000000001'],
    ['1', 18, 10n ** 18n, '1'],
    ['1.234567890123456789', 18, 1_234_567_890_123_456_789n, '1.234567890123456789'],
    ['1000000000', 18, 10n ** 27n, '1000000000'],
    ['42', 0, 42n, '42'],
  ];

  it.each(good)('parses %p with %p decimals', (text, decimals, units, canonical) => {
    expect(parseCryptoAmount(text, decimals)).toBe(units);
    expect(formatCryptoAmount(units, decimals)).toBe(canonical);
  });

  const bad: Array<[unknown, number]> = [
    ['', 6],
    [' 1', 6],
    ['1 ', 6],
    ['1\n', 6],
    ['1 000', 6],
    ['\u00a01', 6],
    ['-1', 6],
    ['-0', 6],
    ['+1', 6],
    ['1e6', 6],
    ['1E-6', 6],
    ['.5', 6],
    ['5.', 6],
    ['.', 6],
    ['01', 6],
    ['00', 6],
    ['00.5', 6],
    ['1.2.3', 6],
    ['1,5', 6],
    ['1_000', 6],
    ['0x10', 6],
    ['Infinity', 6],
    ['NaN', 6],
    ['١٢', 6], // Arabic-Indic digits
    ['１', 6], // full-width digit
    ['1.0000001', 6], // 7 decimals on a 6-decimal coin
    ['1.0000000', 6], // even trailing zeros beyond the coin
    ['0.000000001', 8],
    ['0.0000000001', 9],
    ['0.0000000000000000001', 18],
    ['1.5', 0],
    ['1.0', 0],
    ['1'.repeat(200), 6],
    [(MAX_CRYPTO_UNITS + 1n).toString(), 0],
    [1.5, 6],
    [1, 6],
    [null, 6],
    [undefined, 6],
    [1n, 6],
  ];

  it.each(bad)('refuses %p with %p decimals', (text, decimals) => {
    const error = refusal(() => parseCryptoAmount(text as string, decimals));
    expect(error.code).toBe('invalid_amount');
    expect(error.field).toBe('amount');
    expect(error.message.length).toBeGreaterThan(0);
  });

  it('names the field it was given', () => {
    expect(refusal(() => parseCryptoAmount('x', 6, 'crypto.amount')).field).toBe('crypto.amount');
  });

  it('accepts the uint256 ceiling and nothing above it', () => {
    expect(parseCryptoAmount(MAX_CRYPTO_UNITS.toString(), 0)).toBe(MAX_CRYPTO_UNITS);
    expect(formatCryptoAmount(MAX_CRYPTO_UNITS, 18)).toBe(
      `${MAX_CRYPTO_UNITS / 10n ** 18n}.${(MAX_CRYPTO_UNITS % 10n ** 18n).toString().padStart(18, '0')}`,
    );
    expectRefused(() => formatCryptoAmount(MAX_CRYPTO_UNITS + 1n, 18), 'invalid_amount');
  });

  it('refuses zero only when asked for a positive amount', () => {
    expect(parseCryptoAmount('0.000', 6)).toBe(0n);
    expectRefused(() => parsePositiveCryptoAmount('0.000', 6), 'invalid_amount');
    expect(parsePositiveCryptoAmount('0.000001', 6)).toBe(1n);
  });

  it('refuses negative units, numbers for units and bad decimals', () => {
    expectRefused(() => formatCryptoAmount(-1n, 6), 'invalid_amount');
    expectRefused(() => formatCryptoAmount(1 as unknown as bigint, 6), 'invalid_argument');
    for (const decimals of [-1, 1.5, 37, Number.NaN]) {
      expectRefused(() => parseCryptoAmount('1', decimals), 'invalid_argument');
      expectRefused(() => formatCryptoAmount(1n, decimals), 'invalid_argument');
    }
  });

  it('never emits an exponent, even for 10^18-scale and tiny values', () => {
    expect(formatCryptoAmount(10n ** 40n, 18)).toBe('1' + '0'.repeat(22));
    expect(formatCryptoAmount(1n, 18)).toBe('0.000000000000000001');
    expect(formatCryptoAmount(10n ** 30n + 1n, 18)).toBe('1000000000000.000000000000000001');
  });

  it('round-trips 10,000 seeded random values (format then parse, parse then format)', () => {
    const random = prng(0x5eed);
    const canonical = /^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/;
    const failures = counterexamples();
    let e18Scale = 0;
    for (let i = 0; i < 10_000; i++) {
      const decimals = random.pick([0, ...COIN_DECIMALS]);
      const scale = random.pick(['small', 'e18', 'wide', 'huge'] as const);
      const units =
        scale === 'small'
          ? random.between(0n, 10_000n)
          : scale === 'e18'
            ? random.between(10n ** 17n, 10n ** 19n) // 0.1 to 10 ETH, and ~1e18 for smaller coins
            : scale === 'wide'
              ? random.bits(1 + (random.next32() % 128))
              : random.between(MAX_CRYPTO_UNITS - 10n ** 20n, MAX_CRYPTO_UNITS);
      if (scale === 'e18') e18Scale++;
      const text = formatCryptoAmount(units, decimals);
      const [, fraction = ''] = text.split('.');
      failures.check(
        canonical.test(text) && fraction.length <= decimals && parseCryptoAmount(text, decimals) === units,
        () => `${units} (${decimals} decimals) → ${text}`,
      );

      // A non-canonical but accepted form (trailing zeros up to the coin's decimals) parses
      // to the same units and formats back to the canonical text; one more zero is refused.
      if (decimals > 0) {
        const padded = text.includes('.') ? text.padEnd(text.indexOf('.') + 1 + decimals, '0') : `${text}.${'0'.repeat(decimals)}`;
        const back = parseCryptoAmount(padded, decimals);
        failures.check(
          back === units && formatCryptoAmount(back, decimals) === text && thrownCode(() => parseCryptoAmount(`${padded}0`, decimals)) === 'invalid_amount',
          () => `padded ${padded} (${decimals} decimals)`,
        );
      }
    }
    failures.expectNone();
    expect(e18Scale).toBeGreaterThan(2_000);
  });
});

describe('FIAT and payment amounts', () => {
  it('lists ISO 4217 exponents', () => {
    expect(FIAT).toMatchObject({ USD: 2, EUR: 2, GBP: 2, JPY: 0 });
    expect(fiatExponent('USD')).toBe(2);
    expectRefused(() => fiatExponent('usd'), 'unsupported_currency');
    expectRefused(() => fiatExponent('BTC'), 'unsupported_currency');
    expectRefused(() => fiatExponent('toString'), 'unsupported_currency');
    expectRefused(() => fiatExponent('__proto__'), 'unsupported_currency');
  });

  it.each([
    [100, 'USD'],
    [101, 'USD'],
    [100_000_000, 'USD'],
    [100, 'EUR'],
    [100_000_000, 'GBP'],
    [1, 'JPY'],
    [1_000_000, 'JPY'],
  ])('accepts %p %s', (amount, currency) => {
    expect(validatePaymentAmount(amount, currency)).toBe(amount);
  });

  it.each([
    [99, 'USD', 'amount_out_of_range'],
    [0, 'USD', 'amount_out_of_range'],
    [-100, 'USD', 'amount_out_of_range'],
    [100_000_001, 'USD', 'amount_out_of_range'],
    [1_000_001, 'JPY', 'amount_out_of_range'],
    [0, 'JPY', 'amount_out_of_range'],
    [1.5, 'USD', 'invalid_amount'],
    [100.5, 'USD', 'invalid_amount'],
    [2 ** 53, 'USD', 'invalid_amount'],
    [Number.NaN, 'USD', 'invalid_amount'],
    [Number.POSITIVE_INFINITY, 'USD', 'invalid_amount'],
    ['100', 'USD', 'invalid_amount'],
    [100n, 'USD', 'invalid_amount'],
    [100, 'XYZ', 'unsupported_currency'],
  ])('refuses %p %s with %s', (amount, currency, code) => {
    const error = refusal(() => validatePaymentAmount(amount as number, currency));
    expect(error.code).toBe(code);
    expect(error.field).toBe(code === 'unsupported_currency' ? 'currency' : 'amount');
  });

  it('bounds a card price to $5–$10,000', () => {
    expect(validateCardPrice(500, 'USD')).toBe(500);
    expect(validateCardPrice(1_000_000, 'USD')).toBe(1_000_000);
    expectRefused(() => validateCardPrice(499, 'USD'), 'amount_out_of_range');
    expectRefused(() => validateCardPrice(1_000_001, 'USD'), 'amount_out_of_range');
    expect(refusal(() => validateCardPrice(499, 'USD')).message).toMatch(/5 and 10,000 USD/);
  });
});

describe('minorToDecimal (prices in words: e-mails, pages)', () => {
  it('writes every minor digit of the currency, no float, no assumed two', () => {
    expect(minorToDecimal(5050, 'USD')).toBe('50.50');
    expect(minorToDecimal(5, 'EUR')).toBe('0.05');
    expect(minorToDecimal(5000, 'JPY')).toBe('5000');
    expect(minorToDecimal(-1999, 'GBP')).toBe('-19.99');
    expect(minorToDecimal(100_000_000, 'USD')).toBe('1000000.00');
    expect(() => minorToDecimal(1, 'XXX')).toThrow(expect.objectContaining({ code: 'unsupported_currency' }));
  });
});

describe('quotes', () => {
  it('rounds up, in one place: exact division vs remainder', () => {
    expect(divide(10n, 5n, 'ceil')).toBe(2n);
    expect(divide(11n, 5n, 'ceil')).toBe(3n);
    expect(divide(14n, 5n, 'floor')).toBe(2n);
    // USDC at $1.00 (rate 100): $10.00 is exactly 10 USDC.
    expect(quoteCryptoAmount({ priceMinor: 1000, rateMinorPerCoin: 100n, decimals: 6 })).toBe(10_000_000n);
    // BTC at $60,000.00 (6,000,000): $10.00 → 1000 × 10^8 / 6,000,000 = 16,666.67 sat → 16,667.
    expect(quoteCryptoAmount({ priceMinor: 1000, rateMinorPerCoin: 6_000_000n, decimals: 8 })).toBe(16_667n);
    // Exact: 1200 × 10^8 / 6,000,000 = 20,000 exactly, nothing added.
    expect(quoteCryptoAmount({ priceMinor: 1200, rateMinorPerCoin: 6_000_000n, decimals: 8 })).toBe(20_000n);
    // Remainder of exactly 1 still rounds up: 15 = 2 × 7 + 1 → 3; 14 = 2 × 7 → 2.
    expect(quoteCryptoAmount({ priceMinor: 15n, rateMinorPerCoin: 7n, decimals: 0 })).toBe(3n);
    expect(quoteCryptoAmount({ priceMinor: 14n, rateMinorPerCoin: 7n, decimals: 0 })).toBe(2n);
    // Same with decimals: 100 × 10^6 = 100,000,000 = 33,333,333 × 3 + 1 → 33,333,334.
    expect(quoteCryptoAmount({ priceMinor: 100, rateMinorPerCoin: 3n, decimals: 6 })).toBe(33_333_334n);
    expect(quoteCryptoAmount({ priceMinor: 99, rateMinorPerCoin: 3n, decimals: 6 })).toBe(33_000_000n);
    // And a remainder of rate − 1 (the largest) rounds up by exactly one unit too.
    expect(quoteCryptoAmount({ priceMinor: 13n, rateMinorPerCoin: 7n, decimals: 0 })).toBe(2n);
  });

  it('quotes $1,000,000.00 in ETH at a rate of 1 minor unit per coin without overflow', () => {
    const units = quoteCryptoAmount({ priceMinor: 100_000_000, rateMinorPerCoin: 1n, decimals: 18 });
    expect(units).toBe(10n ** 26n);
    expect(formatCryptoAmount(units, 18)).toBe('100000000');
    expect(fiatValueOf(units, 1n, 18)).toBe(100_000_000);
    // A rate that does not divide: 3 cents per ETH.
    const odd = quoteCryptoAmount({ priceMinor: 100_000_000, rateMinorPerCoin: 3n, decimals: 18 });
    expect(odd).toBe((10n ** 26n + 2n) / 3n);
    expect(fiatValueOf(odd, 3n, 18)).toBe(100_000_000);
    expect(fiatValueOf(odd - 1n, 3n, 18)).toBe(99_999_999);
  });

  it('accepts number prices and rates, refuses bad ones', () => {
    expect(quoteCryptoAmount({ priceMinor: 100, rateMinorPerCoin: 100, decimals: 6 })).toBe(1_000_000n);
    expectRefused(() => quoteCryptoAmount({ priceMinor: 0, rateMinorPerCoin: 100n, decimals: 6 }), 'invalid_amount');
    expectRefused(() => quoteCryptoAmount({ priceMinor: 1.5, rateMinorPerCoin: 100n, decimals: 6 }), 'invalid_amount');
    expectRefused(() => quoteCryptoAmount({ priceMinor: -1n, rateMinorPerCoin: 100n, decimals: 6 }), 'invalid_amount');
    expectRefused(() => quoteCryptoAmount({ priceMinor: 100, rateMinorPerCoin: 0n, decimals: 6 }), 'invalid_rate');
    expectRefused(() => quoteCryptoAmount({ priceMinor: 100, rateMinorPerCoin: -5n, decimals: 6 }), 'invalid_rate');
    expectRefused(() => quoteCryptoAmount({ priceMinor: 100, rateMinorPerCoin: 1.5, decimals: 6 }), 'invalid_rate');
    expectRefused(() => fiatValueOf(-1n, 100n, 6), 'invalid_amount');
  });

  it('fiatValueOf rounds down', () => {
    // 16,666 sat at $60,000.00 = 999.96 cents → 999.
    expect(fiatValueOf(16_666n, 6_000_000n, 8)).toBe(999);
    expect(fiatValueOf(16_667n, 6_000_000n, 8)).toBe(1000);
    expect(fiatValueOf(0n, 6_000_000n, 8)).toBe(0);
    expect(fiatValueOf(10n ** 18n - 1n, 1n, 18)).toBe(0);
  });

  it('property: the quote is worth at least the price, one unit less is worth less', () => {
    const random = prng(42);
    const failures = counterexamples();
    for (let i = 0; i < 10_000; i++) {
      const decimals = random.pick(COIN_DECIMALS);
      const price = Number(random.between(100n, 100_000_000n));
      // Rates from 1 minor unit per coin up to 10^10 (USD 100M per coin), all magnitudes.
      const rate = random.between(1n, 10n ** BigInt(1 + (random.next32() % 10)));
      const units = quoteCryptoAmount({ priceMinor: price, rateMinorPerCoin: rate, decimals });
      // Paid exactly: worth exactly the quoted price; one unit short: underpaid, worth less.
      const quoted = { quotedMinor: price, expected: units, rateMinorPerCoin: rate, decimals };
      failures.check(
        units > 0n &&
          fiatValueOf(units, rate, decimals) >= price &&
          fiatValueOf(units - 1n, rate, decimals) < price &&
          receivedValueMinor({ ...quoted, received: units }) === price &&
          receivedValueMinor({ ...quoted, received: units - 1n }) < price,
        () => `price ${price}, rate ${rate}, decimals ${decimals} → ${units}`,
      );
    }
    failures.expectNone();
  });

  it('remaining and overpaid are never negative', () => {
    expect(remaining(100n, 90n)).toBe(10n);
    expect(remaining(100n, 100n)).toBe(0n);
    expect(remaining(100n, 110n)).toBe(0n);
    expect(overpaid(100n, 110n)).toBe(10n);
    expect(overpaid(100n, 100n)).toBe(0n);
    expect(overpaid(100n, 90n)).toBe(0n);
    expect(remaining(10n ** 30n, 1n)).toBe(10n ** 30n - 1n);
    expectRefused(() => remaining(-1n, 0n), 'invalid_amount');
  });

  it('values an overpayment as the quoted price plus the extra, rounded down', () => {
    // BTC at $60,000.00: quote 16,667 sat for $10.00; 18,334 arrive (110%, rounded up).
    const base = { quotedMinor: 1000, expected: 16_667n, rateMinorPerCoin: 6_000_000n, decimals: 8 };
    expect(simulatedOverpaid(16_667n)).toBe(18_334n);
    // extra 1,667 sat = 100.02 cents → 100.
    expect(receivedValueMinor({ ...base, received: 18_334n })).toBe(1100);
    // 90% rounded down: 15,000 sat = 900 cents.
    expect(simulatedUnderpaid(16_667n)).toBe(15_000n);
    expect(receivedValueMinor({ ...base, received: 15_000n })).toBe(900);
  });
});

describe('percentOf (simulated underpaid 90% / overpaid 110%)', () => {
  it('rounds away from the amount: 90% down, 110% up', () => {
    expect(percentOf(10n, 90)).toBe(9n);
    expect(percentOf(11n, 90)).toBe(9n); // 9.9 → 9
    expect(percentOf(11n, 110)).toBe(13n); // 12.1 → 13
    expect(percentOf(10n, 110)).toBe(11n); // exact
    expect(percentOf(1n, 90)).toBe(0n);
    expect(percentOf(1n, 110)).toBe(2n);
    expect(percentOf(12345n, 100)).toBe(12345n);
    expect(percentOf(0n, 110)).toBe(0n);
    expectRefused(() => percentOf(10n, -1), 'invalid_argument');
    expectRefused(() => percentOf(10n, 1.5), 'invalid_argument');
  });

  it('property: 90% is strictly under, 110% strictly over, on 10,000 seeded amounts', () => {
    const random = prng(7);
    const failures = counterexamples();
    for (let i = 0; i < 10_000; i++) {
      const units = i < 100 ? BigInt(i + 1) : random.between(1n, 10n ** BigInt(1 + (random.next32() % 30)));
      const under = simulatedUnderpaid(units);
      const over = simulatedOverpaid(units);
      failures.check(
        under < units &&
          over > units &&
          // and as close to 90% / 110% as integers allow
          under * 100n <= units * 90n &&
          (under + 1n) * 100n > units * 90n &&
          over * 100n >= units * 110n &&
          (over - 1n) * 100n < units * 110n,
        () => `${units} → ${under} / ${over}`,
      );
    }
    failures.expectNone();
  });
});

describe('fees', () => {
  it.each([
    // amount, bps, fee — 1% of x = x / 100
    [10_000, 100, 100], // exact
    [50, 100, 1], // 0.50 → 1 (half up)
    [49, 100, 0], // 0.49 → 0
    [150, 100, 2], // 1.50 → 2
    [149, 100, 1], // 1.49 → 1
    [250, 100, 3], // 2.50 → 3 (half up, not banker's 2)
    [1, 5_000, 1], // 0.5 → 1
    [3, 5_000, 2], // 1.5 → 2
    [12_345, 290, 358], // 2.9% of 123.45 = 3.58005 → 3.58
    [0, 100, 0],
    [100_000_000, 10_000, 100_000_000], // 100%
    [100_000_000, 0, 0],
  ])('fee(%p, %p bps) = %p', (amount, bps, fee) => {
    expect(feeFromBps(amount, bps)).toBe(fee);
    expect(feeFromBps(BigInt(amount), bps)).toBe(fee);
  });

  it('refuses bad inputs', () => {
    expectRefused(() => feeFromBps(100, -1), 'invalid_argument');
    expectRefused(() => feeFromBps(100, 10_001), 'invalid_argument');
    expectRefused(() => feeFromBps(100, 1.5), 'invalid_argument');
    expectRefused(() => feeFromBps(1.5, 100), 'invalid_amount');
    expectRefused(() => feeFromBps(-1, 100), 'invalid_amount');
  });

  it('a customer fee exists only when the customer pays', () => {
    expect(customerFeeFor(10_000, 100, 'business')).toBe(0);
    expect(customerFeeFor(10_000, 100, 'customer')).toBe(100);
    expectRefused(() => customerFeeFor(10_000, 100, 'nobody' as 'business'), 'invalid_argument');
  });
});

describe('breakdown', () => {
  it('crypto, business pays: no fee lines, total = price', () => {
    expect(buildBreakdown({ currency: 'USD', priceMinor: 10_000, rail: 'crypto', feePayer: 'business', feeRateBps: 100 })).toEqual({
      currency: 'USD',
      price: 10_000,
      processing_fee: null,
      network_fee: null,
      total: 10_000,
    });
  });

  it('crypto, customer pays: processing fee added to the total the quote is made for', () => {
    const breakdown = buildBreakdown({ currency: 'USD', priceMinor: 10_050, rail: 'crypto', feePayer: 'customer', feeRateBps: 100 });
    expect(breakdown).toEqual({ currency: 'USD', price: 10_050, processing_fee: 101, network_fee: null, total: 10_151 });
  });

  it('a network fee only on a card breakdown', () => {
    expect(
      buildBreakdown({ currency: 'EUR', priceMinor: 1_000, rail: 'card', feePayer: 'customer', feeRateBps: 290, networkFeeMinor: 30 }),
    ).toEqual({ currency: 'EUR', price: 1_000, processing_fee: 29, network_fee: 30, total: 1_059 });
    expectRefused(
      () => buildBreakdown({ currency: 'USD', priceMinor: 1_000, rail: 'crypto', feePayer: 'business', feeRateBps: 100, networkFeeMinor: 5 }),
      'invalid_argument',
    );
    expectRefused(() => buildBreakdown({ currency: 'XXX', priceMinor: 1_000, rail: 'crypto', feePayer: 'business', feeRateBps: 100 }), 'unsupported_currency');
  });
});

describe('reporting', () => {
  it('business pays: net = amount − fee − transaction_fee', () => {
    expect(
      buildReporting({ currency: 'USD', amountReceivedMinor: 10_000, feeRateBps: 100, transactionFeeMinor: 0, customerFeeMinor: 0, feePayer: 'business' }),
    ).toEqual({ currency: 'USD', amount: 10_000, fee: 100, transaction_fee: 0, customer_fee: 0, net: 9_900 });
    expect(
      buildReporting({ currency: 'USD', amountReceivedMinor: 10_050, feeRateBps: 100, transactionFeeMinor: 37, customerFeeMinor: 0, feePayer: 'business' }),
    ).toEqual({ currency: 'USD', amount: 10_050, fee: 101, transaction_fee: 37, customer_fee: 0, net: 9_912 });
  });

  it('customer pays: the business nets the price less the network fee on an exact payment', () => {
    const price = 10_050;
    const bps = 100;
    const breakdown = buildBreakdown({ currency: 'USD', priceMinor: price, rail: 'crypto', feePayer: 'customer', feeRateBps: bps });
    const reporting = buildReporting({
      currency: 'USD',
      amountReceivedMinor: breakdown.total,
      feeRateBps: bps,
      transactionFeeMinor: 20,
      customerFeeMinor: breakdown.processing_fee ?? 0,
      feePayer: 'customer',
    });
    expect(reporting).toEqual({ currency: 'USD', amount: 10_151, fee: 101, transaction_fee: 20, customer_fee: 101, net: price - 20 });
  });

  it('underpaid and overpaid: the fee follows what arrived', () => {
    const underpaid = buildReporting({ currency: 'USD', amountReceivedMinor: 900, feeRateBps: 100, transactionFeeMinor: 0, customerFeeMinor: 0, feePayer: 'business' });
    expect(underpaid).toMatchObject({ amount: 900, fee: 9, net: 891 });
    const overpaid = buildReporting({ currency: 'USD', amountReceivedMinor: 1100, feeRateBps: 100, transactionFeeMinor: 0, customerFeeMinor: 0, feePayer: 'business' });
    expect(overpaid).toMatchObject({ amount: 1100, fee: 11, net: 1089 });
    // A customer fee is counted only up to what arrived.
    const tiny = buildReporting({ currency: 'USD', amountReceivedMinor: 50, feeRateBps: 100, transactionFeeMinor: 0, customerFeeMinor: 101, feePayer: 'customer' });
    expect(tiny).toMatchObject({ amount: 50, customer_fee: 50, fee: 0, net: 50 });
  });

  it('a network fee larger than the rest reports a negative net, not a clamped one', () => {
    expect(
      buildReporting({ currency: 'USD', amountReceivedMinor: 100, feeRateBps: 100, transactionFeeMinor: 500, customerFeeMinor: 0, feePayer: 'business' }).net,
    ).toBe(100 - 1 - 500);
  });

  it('refuses a customer fee when the business pays, and bad amounts', () => {
    expectRefused(
      () => buildReporting({ currency: 'USD', amountReceivedMinor: 100, feeRateBps: 100, transactionFeeMinor: 0, customerFeeMinor: 1, feePayer: 'business' }),
      'invalid_argument',
    );
    expectRefused(
      () => buildReporting({ currency: 'USD', amountReceivedMinor: 1.5, feeRateBps: 100, transactionFeeMinor: 0, customerFeeMinor: 0, feePayer: 'business' }),
      'invalid_amount',
    );
  });

  it('property: net + fee + transaction_fee = amount on seeded random payments', () => {
    const random = prng(2024);
    for (let i = 0; i < 2_000; i++) {
      const price = Number(random.between(100n, 100_000_000n));
      const bps = Number(random.between(0n, 1_000n));
      const feePayer = random.pick(['business', 'customer'] as const);
      const breakdown = buildBreakdown({ currency: 'USD', priceMinor: price, rail: 'crypto', feePayer, feeRateBps: bps });
      const decimals = random.pick(COIN_DECIMALS);
      const rate = random.between(1n, 10n ** 9n);
      const expected = quoteCryptoAmount({ priceMinor: breakdown.total, rateMinorPerCoin: rate, decimals });
      const received = random.pick([expected, simulatedUnderpaid(expected), simulatedOverpaid(expected)]);
      const amount = receivedValueMinor({ quotedMinor: breakdown.total, expected, received, rateMinorPerCoin: rate, decimals });
      const transactionFee = Number(random.between(0n, 500n));
      const reporting = buildReporting({
        currency: 'USD',
        amountReceivedMinor: amount,
        feeRateBps: bps,
        transactionFeeMinor: transactionFee,
        customerFeeMinor: customerFeeFor(price, bps, feePayer),
        feePayer,
      });
      expect(reporting.net + reporting.fee + reporting.transaction_fee).toBe(reporting.amount);
      expect(reporting.amount).toBe(amount);
      if (received === expected) {
        expect(reporting.amount).toBe(breakdown.total);
        expect(reporting.net).toBe(feePayer === 'customer' ? price - transactionFee : price - feeFromBps(price, bps) - transactionFee);
      }
    }
  });
});
