import {
  CheckoutEvent,
  PaymentCommand,
  PaymentEvent,
  PaymentState,
  decideCheckout,
  decidePayment,
  evolvePayment,
  initialCheckoutState,
  initialPaymentState,
  react,
} from '../../libs/payments/src/domain';
import { spec } from './given-when-then';

/**
 * A remainder quoted at the rate now (decision 0020): at the first quote's rate it is exactly the
 * coin left (0009); at another rate the fiat left is quoted afresh, and the payment counts what
 * arrives from then on at that rate — the whole price once the remainder is in. The rate travels
 * in PaymentRemainderRequested to the remainder checkout, which records its source and time.
 */
const T0 = new Date('2025-01-01T00:00:00.000Z');
const LATER = new Date('2025-01-01T00:20:00.000Z');
const given = spec<PaymentCommand, PaymentEvent, PaymentState>(decidePayment, evolvePayment, initialPaymentState);
const run = (events: PaymentEvent[], command: PaymentCommand, now = T0) => [...events, ...given(events, now).when(command).events()];
const hash = (n: number) => '0x' + n.toString(16).padStart(64, '0');

// $100.00 in ETH at $3,000.00 (ETH has 18 decimals): 0.033333333333333334 ETH due
const quoted = () =>
  run(run([], { type: 'CreatePayment', paymentId: 'pmt_1', amount: 10_000, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId: null, expiresAt: null }), {
    type: 'SelectMethod', checkoutId: 'chk_1', rail: 'crypto', asset: 'ETH', network: 'ethereum', rateMinorPerCoin: 300_000, quoteEndsAt: '2025-01-01T00:15:00.000Z',
  });
const paid = (events: PaymentEvent[], checkoutId: string, amount: string, n: number, now = T0) =>
  run(run(events, { type: 'RecordTransfer', checkoutId, txHash: hash(n), network: 'ethereum', amount, review: null }, now), { type: 'RecordConfirmations', checkoutId, txHash: hash(n), current: 32, required: 32 }, now);
/** 0.02 ETH arrived: worth floor(0.02 × 3000.00) = $60.00; $40.00 left. */
const underpaid = () => paid(quoted(), 'chk_1', '0.02', 1);
const requestAt = (events: PaymentEvent[], rateMinorPerCoin?: number) =>
  given(events, LATER)
    .when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true, ...(rateMinorPerCoin ? { rate: { rateMinorPerCoin, source: 'coinbase-exchange:ETH-USD', at: '2025-01-01T00:19:59.000Z' } } : {}) })
    .thenIdempotent();
const last = (events: PaymentEvent[]) => events[events.length - 1];

describe('remainder at the rate now', () => {
  it('at the same rate: exactly the coin left, the rate recorded with its source', () => {
    const before = underpaid();
    expect(last(before)).toMatchObject({ type: 'PaymentUnderpaid', data: { amount_received: 6_000, remaining: '0.013333333333333334' } });
    expect(requestAt(before, 300_000)).toEqual([
      {
        type: 'PaymentRemainderRequested',
        data: { checkout_id: 'chk_2', amount: 4_000, currency: 'USD', crypto_amount: '0.013333333333333334', asset: 'ETH', network: 'ethereum', rate: { amount: 300_000, currency: 'USD', source: 'coinbase-exchange:ETH-USD', at: '2025-01-01T00:19:59.000Z' } },
      },
    ]);
  });

  it('at another rate: the $40.00 left quoted afresh (rounded up); paying it succeeds with the whole price', () => {
    const requested = requestAt(underpaid(), 250_000); // ETH fell to $2,500.00
    expect(requested[0].data).toMatchObject({ amount: 4_000, crypto_amount: '0.016', rate: { amount: 250_000 } });
    const done = paid([...underpaid(), ...requested], 'chk_2', '0.016', 2, LATER);
    expect(done.slice(-2).map((e) => e.type)).toEqual(['PaymentRemainderPaid', 'PaymentSucceeded']);
    expect(last(done).data).toMatchObject({ amount_received: 10_000, received_amount: '0.036', overpaid_amount: null, reporting: { amount: 10_000, fee: 100, net: 9_900 } });
  });

  it('short again on the new quote: what had arrived keeps its value, the rest counts at the new rate; a second remainder quotes what is left then', () => {
    const first = [...underpaid(), ...requestAt(underpaid(), 250_000)];
    const short = paid(first, 'chk_2', '0.008', 2, LATER); // half of it: worth $20.00 at $2,500.00
    expect(last(short)).toMatchObject({ type: 'PaymentUnderpaid', data: { expected: '0.036', received: '0.028', remaining: '0.008', amount_received: 8_000 } });
    const afterEnd = new Date('2025-01-01T00:40:00.000Z');
    const ended = run(short, { type: 'RecordCheckoutEnded', checkoutId: 'chk_2', outcome: 'expired' }, afterEnd); // its quote ran out
    const second = given(ended, afterEnd)
      .when({ type: 'RequestRemainder', checkoutId: 'chk_3', hasCheckoutPage: true, rate: { rateMinorPerCoin: 400_000, source: 'coinbase-exchange:ETH-USD', at: afterEnd.toISOString() } })
      .thenIdempotent();
    expect(second[0].data).toMatchObject({ amount: 2_000, crypto_amount: '0.005', rate: { amount: 400_000 } }); // $20.00 at $4,000.00
    const done = paid([...ended, ...second], 'chk_3', '0.005', 3, afterEnd);
    expect(last(done)).toMatchObject({ type: 'PaymentSucceeded', data: { amount_received: 10_000, received_amount: '0.033' } });
  });

  it('overpaying the new quote: the extra valued down at the new rate', () => {
    const requested = [...underpaid(), ...requestAt(underpaid(), 250_000)];
    const done = paid(requested, 'chk_2', '0.02', 2, LATER);
    expect(last(done).data).toMatchObject({ amount_received: 11_000, overpaid_amount: '0.004' }); // $100.00 + 0.004 × $2,500.00
  });

  it('the rate travels to the remainder checkout, which records its source and time', () => {
    const before = underpaid();
    const [requested] = requestAt(before, 250_000) as [Extract<PaymentEvent, { type: 'PaymentRemainderRequested' }>];
    const [reaction] = react(requested, { eventId: '00000000-0000-4000-8000-000000000001', payment: before.reduce(evolvePayment, initialPaymentState) });
    if (reaction.target !== 'open_checkout') throw new Error(`unexpected reaction ${reaction.target}`);
    expect(reaction.command).toMatchObject({ rateMinorPerCoin: 250_000, rateOrigin: { source: 'coinbase-exchange:ETH-USD', at: '2025-01-01T00:19:59.000Z' }, remainder: { amount: '0.016', priceMinor: 4_000 } });
    const [opened] = decideCheckout({ ...reaction.command, address: '0x' + '11'.repeat(20), simulated: false, quoteTtlMs: 900_000 }, initialCheckoutState, { now: LATER }) as CheckoutEvent[];
    expect(opened).toMatchObject({ type: 'CheckoutOpened', data: { amount: '0.016', rate: { amount: 250_000, currency: 'USD', source: 'coinbase-exchange:ETH-USD', at: '2025-01-01T00:19:59.000Z' }, breakdown: { price: 4_000 } } });
  });

  it('a remainder requested before rates were recorded reuses the method rate (stored events replay as before)', () => {
    const [requested] = requestAt(underpaid()) as [Extract<PaymentEvent, { type: 'PaymentRemainderRequested' }>];
    expect(requested.data).not.toHaveProperty('rate');
    const [reaction] = react(requested, { eventId: '00000000-0000-4000-8000-000000000002', payment: underpaid().reduce(evolvePayment, initialPaymentState) });
    expect(reaction.command).toMatchObject({ rateMinorPerCoin: 300_000 });
    expect(reaction.command).not.toHaveProperty('rateOrigin');
  });
});

describe('a remainder below what a fresh address can take (0025 addendum, 2026-11-28, later)', () => {
  // $10.00 in SOL at $150.00 (9 decimals): 0.066666667 SOL due; 0.0666 SOL arrived, 0.000066667 SOL (~1 cent) left
  const solUnderpaid = () => {
    const created = run([], { type: 'CreatePayment', paymentId: 'pmt_1', amount: 1_000, currency: 'USD', feePayer: 'business', feeRateBps: 100, linkId: null, expiresAt: null });
    const selected = run(created, { type: 'SelectMethod', checkoutId: 'chk_1', rail: 'crypto', asset: 'SOL', network: 'solana', rateMinorPerCoin: 15_000, quoteEndsAt: '2025-01-01T00:15:00.000Z' });
    const sig = '5'.repeat(88);
    const detected = run(selected, { type: 'RecordTransfer', checkoutId: 'chk_1', txHash: sig, network: 'solana', amount: '0.0666', review: null });
    return run(detected, { type: 'RecordConfirmations', checkoutId: 'chk_1', txHash: sig, current: 32, required: 32 });
  };

  it('a SOL remainder under the rent-exempt minimum (0.00089088 SOL) is quoted at that minimum: a fresh account takes no less; the excess counts as overpaid', () => {
    const before = solUnderpaid();
    expect(last(before)).toMatchObject({ type: 'PaymentUnderpaid', data: { remaining: '0.000066667' } });
    const requested = given(before, LATER).when({ type: 'RequestRemainder', checkoutId: 'chk_2', hasCheckoutPage: true }).thenIdempotent();
    expect(requested[0]).toMatchObject({ type: 'PaymentRemainderRequested', data: { amount: 1, crypto_amount: '0.00089088', asset: 'SOL', network: 'solana' } });
    // the remainder checkout asks for that amount
    const [reaction] = react(requested[0], { eventId: '00000000-0000-4000-8000-000000000001', payment: [...before].reduce(evolvePayment, initialPaymentState) });
    expect(reaction.command).toMatchObject({ remainder: { amount: '0.00089088', priceMinor: 1 } });
    // paid: the payment succeeds; the excess over what was left is overpaid (and counts in amount_received, as any overpayment)
    const sig2 = '6'.repeat(88);
    const detected = run([...before, ...requested], { type: 'RecordTransfer', checkoutId: 'chk_2', txHash: sig2, network: 'solana', amount: '0.00089088', review: null }, LATER);
    const done = run(detected, { type: 'RecordConfirmations', checkoutId: 'chk_2', txHash: sig2, current: 32, required: 32 }, LATER);
    expect(done.slice(-2).map((e) => e.type)).toEqual(['PaymentRemainderPaid', 'PaymentSucceeded']);
    expect(last(done).data).toMatchObject({ amount_received: 1_012, received_amount: '0.06749088', overpaid_amount: '0.000824213' }); // worth floor(0.06749088 × 150.00)
  });

  it('a remainder at or above the minimum, or on a network that takes any amount, is exactly what is left (unchanged)', () => {
    expect(requestAt(underpaid())[0].data).toMatchObject({ crypto_amount: '0.013333333333333334', asset: 'ETH' });
  });
});
