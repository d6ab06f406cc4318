import { createHash } from 'node:crypto';
import { LogPosition, comparePositions } from '@lib/eventstore';
import { CreatePaymentCommand, PAYMENT_REFERENCE_STREAM, PAYMENT_STREAM, PaymentDomainError } from '@lib/payments';
import { storePerSuite } from '../support/fixtures';
import { paymentsUseCases } from './support/use-cases';

/**
 * The create-payment use case below HTTP: §8.9's reference on its own stream category
 * (`payment_reference-…`, decision 0014), claims written before the rename still honoured, and
 * an answer with an existing payment waits for that payment's last position (#17.8).
 */
describe('CreatePaymentHandler: references', () => {
  const opened = storePerSuite('embedded');
  let businesses = 0;
  const business = () => ({ id: `biz_ref${++businesses}`, simulated: true });
  const hash = (reference: string) => createHash('sha256').update(reference).digest('hex').slice(0, 40);


  /** The use cases with a read-model waiter that records what it was asked to wait for. */
  const useCases = () => {
    const waited: LogPosition[] = [];
    return { waited, ...paymentsUseCases(opened.store, opened.db, { waitFor: async (position) => (waited.push(position), true) }) };
  };
  const refusal = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      if (error instanceof PaymentDomainError) return { code: error.code, field: error.field };
      throw error;
    }
    return null;
  };

  it('claims the reference on payment_reference-<business>-<hash> with the price, and answers a repeat with the holder after waiting for its last event', async () => {
    const biz = business();
    const first = useCases();
    const { paymentId } = await first.createPayment.execute(new CreatePaymentCommand(biz, { amount: 1_000, currency: 'USD', reference: 'order-7' }));
    const [claim] = await opened.store.readStream(PAYMENT_REFERENCE_STREAM.stream(`${biz.id}-${hash('order-7')}`));
    expect(claim).toMatchObject({ type: 'PaymentReferenceClaimed', data: { reference: 'order-7', payment_id: paymentId, amount: 1_000, currency: 'USD' } });

    const repeat = useCases();
    expect(await repeat.createPayment.execute(new CreatePaymentCommand(biz, { amount: 1_000, currency: 'USD', reference: 'order-7' }))).toEqual({ paymentId });
    const [head] = await opened.store.readStream(PAYMENT_STREAM.stream(paymentId), { direction: 'backwards', maxCount: 1 });
    expect(repeat.waited).toHaveLength(1);
    expect(comparePositions(repeat.waited[0], head.position)).toBe(0);
    expect(await refusal(repeat.createPayment.execute(new CreatePaymentCommand(biz, { amount: 1_001, currency: 'USD', reference: 'order-7' })))).toEqual({ code: 'reference_in_use', field: 'reference' });
  });

  it('honours a claim stored before the rename (payment-reference-…): the same price is the same payment, another is reference_in_use', async () => {
    const biz = business();
    const app = useCases();
    const { paymentId } = await app.createPayment.execute(new CreatePaymentCommand(biz, { amount: 2_000, currency: 'EUR' }));
    await opened.store.append(`payment-reference-${biz.id}-${hash('legacy-1')}`, [{ id: '0b6f0e9e-0000-4000-8000-000000000001', type: 'PaymentReferenceClaimed', data: { reference: 'legacy-1', payment_id: paymentId } }], 'no_stream');
    expect(await app.createPayment.execute(new CreatePaymentCommand(biz, { amount: 2_000, currency: 'EUR', reference: 'legacy-1' }))).toEqual({ paymentId });
    expect(await refusal(app.createPayment.execute(new CreatePaymentCommand(biz, { amount: 2_000, currency: 'USD', reference: 'legacy-1' })))).toEqual({ code: 'reference_in_use', field: 'reference' });
  });

  it('a reference claimed by a request that has not written its payment yet: the same price writes that payment, another price is reference_in_use', async () => {
    const biz = business();
    const app = useCases();
    const claimed = 'pmt_claimednotwritten000001';
    await opened.store.append(
      PAYMENT_REFERENCE_STREAM.stream(`${biz.id}-${hash('half')}`),
      [{ id: '0b6f0e9e-0000-4000-8000-000000000002', type: 'PaymentReferenceClaimed', data: { reference: 'half', payment_id: claimed, amount: 3_000, currency: 'USD' } }],
      'no_stream',
    );
    expect(await refusal(app.createPayment.execute(new CreatePaymentCommand(biz, { amount: 3_100, currency: 'USD', reference: 'half' })))).toEqual({ code: 'reference_in_use', field: 'reference' });
    // written now: answered from its own events (the payment as its endpoint shows it)
    expect(await app.createPayment.execute(new CreatePaymentCommand(biz, { amount: 3_000, currency: 'USD', reference: 'half' }))).toEqual({
      paymentId: claimed,
      payment: expect.objectContaining({ id: claimed, status: 'pending', amount: 3_000, currency: 'USD', reference: 'half' }),
    });
    expect((await app.streams.payment(claimed)).status).toBe('pending');
  });

  it('a holder that ended without funds lets a new payment take the reference', async () => {
    const biz = business();
    const app = useCases();
    const { paymentId } = await app.createPayment.execute(new CreatePaymentCommand(biz, { amount: 1_500, currency: 'USD', reference: 'again' }));
    await app.streams.decidePayment(paymentId, { type: 'CancelPayment' }, { now: new Date(), metadata: {} });
    const next = await app.createPayment.execute(new CreatePaymentCommand(biz, { amount: 1_500, currency: 'USD', reference: 'again' }));
    expect(next.paymentId).not.toBe(paymentId);
    const claims = await opened.store.readStream(PAYMENT_REFERENCE_STREAM.stream(`${biz.id}-${hash('again')}`));
    expect(claims.map((c) => (c.data as { payment_id: string }).payment_id)).toEqual([paymentId, next.paymentId]);
  });
});
