import { DomainRefusal } from '@lib/domain';
import { thrownBy } from './thrown';

/** A decider that takes no context (libs/customers, libs/links, libs/wallets). */
export interface PlainDecider<C, E, S> {
  decide(command: C, state: S, ctx: undefined): E[];
  evolve(state: S, event: E): S;
  initialState: S;
}

/**
 * given(events).when(command).then(events) | .refused(code, field): the given/when/then of a
 * decider that takes no context; a refusal is the DomainRefusal it throws, by code and field.
 */
export function givenOn<C, E, S>(decider: PlainDecider<C, E, S>, events: E[]) {
  const state = events.reduce(decider.evolve, decider.initialState);
  return {
    when: (command: C) => ({
      then: (expected: E[]) => expect(decider.decide(command, state, undefined)).toEqual(expected),
      refused: (code: string, field: string | null = null) => {
        const refusal = thrownBy(DomainRefusal, () => decider.decide(command, state, undefined));
        expect({ code: refusal.code, field: refusal.field }).toEqual({ code, field });
      },
    }),
  };
}
