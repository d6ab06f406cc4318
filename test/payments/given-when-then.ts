import { CheckoutCommand, CheckoutEvent, CheckoutState, PaymentCommand, PaymentEvent, PaymentState, PaymentDomainError, decideCheckout, decidePayment, evolveCheckout, evolvePayment, initialCheckoutState, initialPaymentState } from '../../libs/payments/src/domain';
import { thrownBy } from '../support/thrown';

/** The tests' start of time, and `ms` after it. */
export const T0 = new Date('2025-01-01T00:00:00.000Z');
export const at = (ms: number) => new Date(T0.getTime() + ms);

/** given(events).when(command).then(events | error code): Emmett's DeciderSpecification, tiny. */
export function spec<C, E, S>(decide: (c: C, s: S, ctx: { now: Date }) => E[], evolve: (s: S, e: E) => S, initial: S) {
  return (given: E[], now: Date = new Date('2025-01-01T00:00:00.000Z')) => ({
    when: (command: C) => {
      const state = given.reduce(evolve, initial);
      const run = () => decide(command, state, { now });
      return {
        then(expected: E[] | string): E[] {
          if (typeof expected === 'string') {
            expect(thrownBy(PaymentDomainError, run).code).toBe(expected);
            return [];
          }
          const events = run();
          expect(events).toEqual(expected);
          return events;
        },
        events: run,
        /** Retry safety: deciding the same command on the state it produced adds nothing. */
        thenIdempotent(): E[] {
          const events = run();
          const after = events.reduce(evolve, state);
          expect(decide(command, after, { now })).toEqual([]);
          return events;
        },
      };
    },
  });
}

/** given/when/then on the checkout decider. */
export const givenCheckout = spec<CheckoutCommand, CheckoutEvent, CheckoutState>(decideCheckout, evolveCheckout, initialCheckoutState);

/** given/when/then on the payment decider. */
export const givenPayment = spec<PaymentCommand, PaymentEvent, PaymentState>(decidePayment, evolvePayment, initialPaymentState);
