import { DomainRefusal } from '@lib/domain';
import { PauseCommand, PauseEvent, pausesDecider } from '@lib/operations';
import { thrownBy } from '../support/thrown';

/** given(events).when(command).then(events | refusal), on the operator pauses' decider (issue 19 B14). */
const given = (events: PauseEvent[]) => {
  const state = events.reduce(pausesDecider.evolve, pausesDecider.initialState);
  return {
    when: (command: PauseCommand) => ({
      then: (expected: PauseEvent[]) => expect(pausesDecider.decide(command, state, undefined)).toEqual(expected),
      refused: (field: string) => expect(thrownBy(DomainRefusal, () => pausesDecider.decide(command, state, undefined))).toMatchObject({ code: 'invalid_request', field }),
    }),
  };
};
const paused = (target: 'checkouts' | 'network:polygon', reason = 'node upgrade'): PauseEvent => ({ type: 'ServicePaused', data: { target, reason } });

describe('operator pauses (decider)', () => {
  it('pauses with a trimmed reason; pausing again or resuming what is not paused changes nothing', () => {
    given([]).when({ type: 'Pause', target: 'checkouts', reason: '  node upgrade ' }).then([paused('checkouts')]);
    given([paused('checkouts')]).when({ type: 'Pause', target: 'checkouts', reason: 'again' }).then([]);
    given([]).when({ type: 'Resume', target: 'checkouts' }).then([]);
  });

  it('resumes one target, leaving the others paused', () => {
    given([paused('checkouts'), paused('network:polygon')]).when({ type: 'Resume', target: 'network:polygon' }).then([{ type: 'ServiceResumed', data: { target: 'network:polygon' } }]);
    const state = [paused('checkouts'), paused('network:polygon'), { type: 'ServiceResumed', data: { target: 'network:polygon' } } as PauseEvent].reduce(pausesDecider.evolve, pausesDecider.initialState);
    expect([...state.keys()]).toEqual(['checkouts']);
  });

  it('refuses an unknown target and a missing or overlong reason', () => {
    given([]).when({ type: 'Pause', target: 'network:dogecoin' as never, reason: 'x' }).refused('target');
    given([]).when({ type: 'Pause', target: 'checkouts', reason: '   ' }).refused('reason');
    given([]).when({ type: 'Pause', target: 'checkouts', reason: 'x'.repeat(501) }).refused('reason');
  });
});
