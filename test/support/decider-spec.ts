import { DomainRefusal } from '@lib/domain';
import { thrownBy } from './thrown';

/** A decider that takes no context (libs/customers, libs/links, libs/wallets). */
export interface PlainDecider<C, E, S> {
  decide(command: C, state: S, ctx: undefined): E[];
  evolve(state: S, event: E): S;
  initialState: S;
}

/** A decider that decides with a context (the time, mostly): `undefined` for one that takes none. */
export interface ContextDecider<C, E, S, X> {
  decide(command: C, state: S, ctx: X): E[];
  evolve(state: S, event: E): S;
  initialState: S;
}

/**
 * given(events).when(command, context).then(events) | .refused(code, field, retryAfter?): the
 * given/when/then of a decider; a refusal is the DomainRefusal it throws, by code and field, and
 * by its `retry_after` detail when the test names one.
 */
export function givenWith<C, E, S, X>(decider: ContextDecider<C, E, S, X>, events: E[]) {
  const state = events.reduce(decider.evolve, decider.initialState);
  return {
    when: (command: C, context: X) => ({
      then: (expected: E[]) => expect(decider.decide(command, state, context)).toEqual(expected),
      refused: (code: string, field: string | null = null, retryAfter?: number) => {
        const refusal = thrownBy(DomainRefusal, () => decider.decide(command, state, context));
        expect({ code: refusal.code, field: refusal.field }).toEqual({ code, field });
        if (retryAfter !== undefined) expect(refusal.details.retry_after).toBe(retryAfter);
      },
    }),
  };
}

/**
 * given(events).when(command).then(events) | .refused(code, field): the given/when/then of a
 * decider that takes no context; a refusal is the DomainRefusal it throws, by code and field.
 */
export function givenOn<C, E, S>(decider: PlainDecider<C, E, S>, events: E[]) {
  const given = givenWith(decider, events);
  return { when: (command: C) => given.when(command, undefined) };
}

/**
 * The given/when/then of a decider that folds its own events and decides with a context (the
 * businesses capability): `given(events).when(command, context = defaultContext())` then
 * `.then(events)`, `.thenRefused(code, field, message?)` (the `refusal` it throws, by code and
 * field, and its message when the test names one) or `.thenThrows(message)` (an error that is
 * no refusal).
 */
export function givenFolded<C, E, S, X, R extends DomainRefusal>(decider: { fold(events: E[]): S; decide(command: C, state: S, ctx: X): E[] }, refusal: abstract new (...args: never[]) => R, defaultContext: () => X) {
  return (events: E[]) => {
    const state = decider.fold(events);
    return {
      when(command: C, ctx: X = defaultContext()) {
        const run = () => decider.decide(command, state, ctx);
        return {
          then: (expected: E[]) => expect(run()).toEqual(expected),
          thenRefused(code: R['code'], field: string | null = null, message?: RegExp): void {
            const caught = thrownBy(refusal, run);
            expect(caught).toMatchObject({ code, field });
            if (message) expect(caught.message).toMatch(message);
          },
          thenThrows: (message: RegExp) => expect(run).toThrow(message),
        };
      },
    };
  };
}
