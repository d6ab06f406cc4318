import { DomainRefusal } from '@lib/domain';
import { ExecutionContext } from '@nestjs/common';
import { PASSKEYS_MAX, PasskeyAddedData, PasskeyCommand, PasskeyState, PersonEventForPasskeys, StepUpCheck, passkeyDecider } from '@lib/accounts';
import { StepUpGuard } from '../../apps/api/src/auth/step-up';
import { thrownBy } from '../support/thrown';

/** given(events).when(command).then(events | refusal), on the person's passkey decider (decision 0037). */
function given(events: PersonEventForPasskeys[]) {
  const state = events.reduce<PasskeyState>(passkeyDecider.evolve, passkeyDecider.initialState);
  return {
    when: (command: PasskeyCommand) => ({
      then: (expected: PersonEventForPasskeys[]) => expect(passkeyDecider.decide(command, state, undefined)).toEqual(expected),
      refused: (code: string) => expect(thrownBy(DomainRefusal, () => passkeyDecider.decide(command, state, undefined)).code).toBe(code),
    }),
  };
}

const opened = (password: string | null = 'argon2id$hash'): PersonEventForPasskeys => ({ type: 'AccountOpened', data: { account_id: 'acc_1', password_hash: password } });
const passkey = (n: number, counter = 0): PasskeyAddedData => ({
  passkey_id: `pky_${n}`,
  credential_id: `cred${n}`,
  public_key: 'pQECAyYgASFYIA',
  counter,
  transports: ['internal'],
  name: 'Passkey',
  device_type: 'singleDevice',
  backed_up: false,
});
const added = (n: number, counter = 0): PersonEventForPasskeys => ({ type: 'PasskeyAdded', data: passkey(n, counter) });
const AT = '2026-11-27T06:00:00.000Z';

describe('passkey decider', () => {
  it('adds a passkey to an opened account; the same add again changes nothing', () => {
    given([opened()]).when({ type: 'AddPasskey', passkey: passkey(1) }).then([added(1)]);
    given([opened(), added(1)]).when({ type: 'AddPasskey', passkey: passkey(1) }).then([]);
  });

  it('refuses a credential the person has under another id (409 passkey_exists), an 11th passkey (409 passkey_limit), an unopened account (404)', () => {
    given([opened(), added(1)]).when({ type: 'AddPasskey', passkey: { ...passkey(2), credential_id: 'cred1' } }).refused('passkey_exists');
    const ten = Array.from({ length: PASSKEYS_MAX }, (_, i) => added(i + 1));
    given([opened(), ...ten]).when({ type: 'AddPasskey', passkey: passkey(11) }).refused('passkey_limit');
    given([opened(), ...ten, { type: 'PasskeyRemoved', data: { passkey_id: 'pky_3' } }]).when({ type: 'AddPasskey', passkey: passkey(11) }).then([added(11)]);
    given([]).when({ type: 'AddPasskey', passkey: passkey(1) }).refused('not_found');
  });

  it('removes a passkey; the last way to sign in (no password, no other passkey) is 409 last_sign_in_method; an unknown one 404', () => {
    given([opened(), added(1)]).when({ type: 'RemovePasskey', passkeyId: 'pky_1' }).then([{ type: 'PasskeyRemoved', data: { passkey_id: 'pky_1' } }]);
    given([opened(null), added(1), added(2)]).when({ type: 'RemovePasskey', passkeyId: 'pky_1' }).then([{ type: 'PasskeyRemoved', data: { passkey_id: 'pky_1' } }]);
    given([opened(null), added(1)]).when({ type: 'RemovePasskey', passkeyId: 'pky_1' }).refused('last_sign_in_method');
    given([opened(null), added(1), added(2), { type: 'PasskeyRemoved', data: { passkey_id: 'pky_2' } }]).when({ type: 'RemovePasskey', passkeyId: 'pky_1' }).refused('last_sign_in_method');
    given([opened(null), { type: 'AccountPasswordChanged', data: { password_hash: 'argon2id$new' } }, added(1)]).when({ type: 'RemovePasskey', passkeyId: 'pky_1' }).then([{ type: 'PasskeyRemoved', data: { passkey_id: 'pky_1' } }]);
    given([opened(), added(1)]).when({ type: 'RemovePasskey', passkeyId: 'pky_9' }).refused('not_found');
  });

  it('records a use whose counter grew; a counter that did not grow is 400 passkey_failed; 0 and 0 (no counter) pass; an unknown passkey 400 passkey_unknown', () => {
    given([opened(), added(1, 5)]).when({ type: 'UsePasskey', passkeyId: 'pky_1', counter: 6, at: AT }).then([{ type: 'PasskeyUsed', data: { passkey_id: 'pky_1', counter: 6, at: AT } }]);
    given([opened(), added(1, 5)]).when({ type: 'UsePasskey', passkeyId: 'pky_1', counter: 5, at: AT }).refused('passkey_failed');
    given([opened(), added(1, 0), { type: 'PasskeyUsed', data: { passkey_id: 'pky_1', counter: 7, at: AT } }]).when({ type: 'UsePasskey', passkeyId: 'pky_1', counter: 3, at: AT }).refused('passkey_failed');
    given([opened(), added(1, 0)]).when({ type: 'UsePasskey', passkeyId: 'pky_1', counter: 0, at: AT }).then([{ type: 'PasskeyUsed', data: { passkey_id: 'pky_1', counter: 0, at: AT } }]);
    given([opened(), added(1)]).when({ type: 'UsePasskey', passkeyId: 'pky_2', counter: 1, at: AT }).refused('passkey_unknown');
  });

  it('steps up a started session; an ended or unknown one is 404', () => {
    const started: PersonEventForPasskeys = { type: 'SessionStarted', data: { session_id: 'ses_1' } };
    given([opened(), started])
      .when({ type: 'StepUp', sessionId: 'ses_1', method: 'password', passkeyId: null, at: AT })
      .then([{ type: 'SessionSteppedUp', data: { session_id: 'ses_1', method: 'password', passkey_id: null, at: AT } }]);
    given([opened(), started, { type: 'SessionEnded', data: { session_id: 'ses_1' } }]).when({ type: 'StepUp', sessionId: 'ses_1', method: 'passkey', passkeyId: 'pky_1', at: AT }).refused('not_found');
    given([opened()]).when({ type: 'StepUp', sessionId: 'ses_2', method: 'password', passkeyId: null, at: AT }).refused('not_found');
  });

  it('folds only the person’s stream and the types it knows', () => {
    expect(passkeyDecider.fromStored!({ stream: 'account-acc_1', type: 'PasskeyAdded', data: passkey(1) } as never)).toEqual(added(1));
    expect(passkeyDecider.fromStored!({ stream: 'account-acc_1', type: 'AccountBusinessJoined', data: {} } as never)).toBeNull();
    expect(passkeyDecider.fromStored!({ stream: 'signup-sgn_1', type: 'PasskeyAdded', data: {} } as never)).toBeNull();
  });
});

describe('@RequiresStepUp', () => {
  const context = (auth: unknown) => ({ switchToHttp: () => ({ getRequest: () => ({ auth }) }) }) as unknown as ExecutionContext;
  const check = (holds: boolean) => ({ holds: async () => holds }) as unknown as StepUpCheck;

  it('never asks an API key; asks a session for a proof within 15 minutes (403 step_up_required)', async () => {
    await expect(new StepUpGuard(check(false)).canActivate(context({ kind: 'api_key' }))).resolves.toBe(true);
    await expect(new StepUpGuard(check(true)).canActivate(context({ kind: 'session', sessionId: 'ses_1' }))).resolves.toBe(true);
    await expect(new StepUpGuard(check(false)).canActivate(context({ kind: 'session', sessionId: 'ses_1' }))).rejects.toMatchObject({ code: 'step_up_required', status: 403 });
    await expect(new StepUpGuard(null).canActivate(context({ kind: 'session', sessionId: 'ses_1' }))).rejects.toMatchObject({ code: 'step_up_required' });
  });
});
