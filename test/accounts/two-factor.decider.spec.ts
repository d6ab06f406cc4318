import {
  ACCOUNT_STREAM_CATEGORIES,
  TWO_FACTOR_CHALLENGE_STREAM,
  TwoFactorChallengeCommand,
  TwoFactorChallengeEvent,
  TwoFactorCommand,
  TwoFactorEvent,
  accountDecider,
  asTwoFactorEvent,
  TwoFactorStreamEvent,
  liveChallenge,
  twoFactorChallengeDecider,
  twoFactorDecider,
} from '@lib/accounts';
import { foldWith } from '@lib/domain';
import { givenWith } from '../support/decider-spec';

const NOW = new Date('2026-11-27T10:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);
const MINUTE = 60_000;

/** given(events).when(command, now).then(events | refusal), on two-step sign-in's decider (decision 0036). */
function given(events: TwoFactorStreamEvent[]) {
  const on = givenWith(twoFactorDecider, events);
  return { when: (command: TwoFactorCommand, now = NOW) => on.when(command, { now }) };
}

function givenChallenge(events: TwoFactorChallengeEvent[]) {
  const on = givenWith(twoFactorChallengeDecider, events);
  return { when: (command: TwoFactorChallengeCommand, now = NOW) => on.when(command, { now }) };
}

const setupStarted = (setupId = 'tfs_1', sessionId = 'ses_1', expiresAt = at(10 * MINUTE)): TwoFactorEvent => ({
  type: 'TwoFactorSetupStarted',
  data: { setup_id: setupId, session_id: sessionId, expires_at: expiresAt.toISOString() },
});
const enabled = (timeStep = 100, hashes = ['r1', 'r2']): TwoFactorEvent => ({
  type: 'TwoFactorEnabled',
  data: { setup_id: 'tfs_1', recovery_code_hashes: hashes, time_step: timeStep, enabled_at: NOW.toISOString() },
});
const accepted = (timeStep: number | null, hash: string | null = null): TwoFactorEvent => ({ type: 'TwoFactorCodeAccepted', data: { time_step: timeStep, recovery_code_hash: hash } });
const totp = (timeStep: number) => ({ kind: 'totp' as const, timeStep });
const recovery = (hash: string) => ({ kind: 'recovery_code' as const, hash });

describe('two-step setup', () => {
  it('starts a setup for the session, valid 10 minutes', () => {
    given([]).when({ type: 'StartTwoFactorSetup', setupId: 'tfs_1', sessionId: 'ses_1' }).then([setupStarted()]);
  });

  it('a new setup replaces the last (from any session)', () => {
    given([setupStarted()]).when({ type: 'StartTwoFactorSetup', setupId: 'tfs_2', sessionId: 'ses_2' }).then([setupStarted('tfs_2', 'ses_2')]);
  });

  it('refuses a setup when two-step sign-in is on: two_factor_enabled', () => {
    given([setupStarted(), enabled()]).when({ type: 'StartTwoFactorSetup', setupId: 'tfs_2', sessionId: 'ses_1' }).refused('two_factor_enabled');
  });
});

describe('turning two-step sign-in on', () => {
  const enable = (over: Partial<Extract<TwoFactorCommand, { type: 'EnableTwoFactor' }>> = {}): TwoFactorCommand => ({
    type: 'EnableTwoFactor',
    setupId: 'tfs_1',
    sessionId: 'ses_1',
    timeStep: 100,
    recoveryCodeHashes: ['r1', 'r2'],
    ...over,
  });

  it('enables the setup of this session within its 10 minutes, recording the code’s step and the recovery codes’ hashes', () => {
    given([setupStarted()]).when(enable(), at(9 * MINUTE)).then([
      { type: 'TwoFactorEnabled', data: { setup_id: 'tfs_1', recovery_code_hashes: ['r1', 'r2'], time_step: 100, enabled_at: at(9 * MINUTE).toISOString() } },
    ]);
  });

  it('refuses without a setup, from another session, after 10 minutes, or for a replaced setup: two_factor_setup_required', () => {
    given([]).when(enable()).refused('two_factor_setup_required');
    given([setupStarted()]).when(enable({ sessionId: 'ses_2' })).refused('two_factor_setup_required');
    given([setupStarted()]).when(enable(), at(10 * MINUTE)).refused('two_factor_setup_required');
    given([setupStarted(), setupStarted('tfs_2')]).when(enable()).refused('two_factor_setup_required');
  });

  it('refuses when already on: two_factor_enabled', () => {
    given([setupStarted(), enabled()]).when(enable()).refused('two_factor_enabled');
  });

  it('a setup is used up by enabling (enabling again after turning off needs a new one)', () => {
    given([setupStarted(), enabled(), { type: 'TwoFactorDisabled', data: { setup_id: 'tfs_1' } }]).when(enable()).refused('two_factor_setup_required');
  });
});

describe('codes at sign-in', () => {
  it('accepts a TOTP step later than the last accepted (the enabling code’s included)', () => {
    given([setupStarted(), enabled(100)]).when({ type: 'AcceptTwoFactorCode', proof: totp(101), credentialsVersion: 0 }).then([accepted(101)]);
  });

  it('never accepts a step twice, nor an earlier one: invalid_code on code', () => {
    given([setupStarted(), enabled(100)]).when({ type: 'AcceptTwoFactorCode', proof: totp(100), credentialsVersion: 0 }).refused('invalid_code', 'code');
    given([setupStarted(), enabled(100), accepted(105)]).when({ type: 'AcceptTwoFactorCode', proof: totp(105), credentialsVersion: 0 }).refused('invalid_code', 'code');
    given([setupStarted(), enabled(100), accepted(105)]).when({ type: 'AcceptTwoFactorCode', proof: totp(104), credentialsVersion: 0 }).refused('invalid_code', 'code');
  });

  it('accepts each recovery code once; an unknown one is invalid_code on recovery_code', () => {
    given([setupStarted(), enabled()]).when({ type: 'AcceptTwoFactorCode', proof: recovery('r2'), credentialsVersion: 0 }).then([accepted(null, 'r2')]);
    given([setupStarted(), enabled(), accepted(null, 'r2')]).when({ type: 'AcceptTwoFactorCode', proof: recovery('r2'), credentialsVersion: 0 }).refused('invalid_code', 'recovery_code');
    given([setupStarted(), enabled()]).when({ type: 'AcceptTwoFactorCode', proof: recovery('r9'), credentialsVersion: 0 }).refused('invalid_code', 'recovery_code');
  });

  it('a recovery code leaves the TOTP step where it was', () => {
    given([setupStarted(), enabled(100), accepted(null, 'r1')]).when({ type: 'AcceptTwoFactorCode', proof: totp(100), credentialsVersion: 0 }).refused('invalid_code', 'code');
  });

  it('turned off since the challenge: challenge_expired', () => {
    given([]).when({ type: 'AcceptTwoFactorCode', proof: totp(1), credentialsVersion: 0 }).refused('challenge_expired');
  });

  // audit F1 (2026-11-29): a challenge proves the password that passed; a change, a reset or an undone e-mail change ends it
  const passwordChanged: TwoFactorStreamEvent = { type: 'AccountPasswordChanged', data: { account_id: 'acc_1', password_hash: 'h2' } };
  const undone: TwoFactorStreamEvent = { type: 'EmailChangeUndone', data: { change_id: 'emc_1', email: 'a@b.example', from_email: 'c@d.example' } };

  it('the password the challenge proved replaced since (a change or a reset): challenge_expired on challenge_id, nothing accepted', () => {
    const on = [setupStarted(), enabled(100)];
    given(on).when({ type: 'AcceptTwoFactorCode', proof: totp(101), credentialsVersion: 0 }).then([accepted(101)]);
    given([...on, passwordChanged]).when({ type: 'AcceptTwoFactorCode', proof: totp(101), credentialsVersion: 0 }).refused('challenge_expired', 'challenge_id');
    given([...on, passwordChanged]).when({ type: 'AcceptTwoFactorCode', proof: recovery('r1'), credentialsVersion: 0 }).refused('challenge_expired', 'challenge_id');
    // a challenge started after the change (with the new password) is answered
    given([...on, passwordChanged]).when({ type: 'AcceptTwoFactorCode', proof: recovery('r1'), credentialsVersion: 1 }).then([accepted(null, 'r1')]);
    // a password changed before two-step sign-in was turned on counts as well (the version is the stream's)
    given([passwordChanged, setupStarted(), enabled(100)]).when({ type: 'AcceptTwoFactorCode', proof: totp(101), credentialsVersion: 0 }).refused('challenge_expired', 'challenge_id');
    given([passwordChanged, setupStarted(), enabled(100)]).when({ type: 'AcceptTwoFactorCode', proof: totp(101), credentialsVersion: 1 }).then([accepted(101)]);
  });

  it('an undone e-mail change, and a challenge recorded before versions were: challenge_expired', () => {
    given([setupStarted(), enabled(100), undone]).when({ type: 'AcceptTwoFactorCode', proof: totp(101), credentialsVersion: 0 }).refused('challenge_expired', 'challenge_id');
    given([setupStarted(), enabled(100)]).when({ type: 'AcceptTwoFactorCode', proof: totp(101), credentialsVersion: null }).refused('challenge_expired', 'challenge_id');
  });

  it('folds the password changes from the stored person’s stream (and only from it)', () => {
    const stored = [setupStarted(), enabled(100), passwordChanged, passwordChanged, undone].map((e) => ({ stream: 'account-acc_1', ...e }));
    expect(foldWith(twoFactorDecider, stored).credentialsVersion).toBe(3);
    expect(foldWith(twoFactorDecider, stored).enabled).toMatchObject({ setupId: 'tfs_1' });
    const elsewhere = [{ stream: 'signup-sgn_1', ...passwordChanged }];
    expect(foldWith(twoFactorDecider, elsewhere).credentialsVersion).toBe(0);
  });
});

describe('turning two-step sign-in off', () => {
  it('takes a code or an unused recovery code, and records it with the disabling', () => {
    given([setupStarted(), enabled(100)]).when({ type: 'DisableTwoFactor', proof: totp(101) }).then([accepted(101), { type: 'TwoFactorDisabled', data: { setup_id: 'tfs_1' } }]);
    given([setupStarted(), enabled(100)]).when({ type: 'DisableTwoFactor', proof: recovery('r1') }).then([accepted(null, 'r1'), { type: 'TwoFactorDisabled', data: { setup_id: 'tfs_1' } }]);
  });

  it('refuses a used code: invalid_code; when off: two_factor_disabled', () => {
    given([setupStarted(), enabled(100)]).when({ type: 'DisableTwoFactor', proof: totp(100) }).refused('invalid_code', 'code');
    given([setupStarted(), enabled(100), accepted(null, 'r1')]).when({ type: 'DisableTwoFactor', proof: recovery('r1') }).refused('invalid_code', 'recovery_code');
    given([]).when({ type: 'DisableTwoFactor', proof: totp(1) }).refused('two_factor_disabled');
    given([setupStarted(), enabled(), { type: 'TwoFactorDisabled', data: { setup_id: 'tfs_1' } }]).when({ type: 'DisableTwoFactor', proof: totp(200) }).refused('two_factor_disabled');
  });
});

describe('sign-in challenges', () => {
  const started: TwoFactorChallengeEvent = { type: 'TwoFactorChallengeStarted', data: { account_id: 'acc_1', expires_at: at(5 * MINUTE).toISOString(), credentials_version: 2 } };

  it('starts once for a person, valid 5 minutes, recording the person’s credentials version', () => {
    givenChallenge([]).when({ type: 'StartTwoFactorChallenge', accountId: 'acc_1', credentialsVersion: 2 }).then([started]);
    givenChallenge([started]).when({ type: 'StartTwoFactorChallenge', accountId: 'acc_1', credentialsVersion: 2 }).then([]);
    const state = [started].reduce(twoFactorChallengeDecider.evolve, twoFactorChallengeDecider.initialState);
    expect(liveChallenge(state, NOW)).toEqual({ accountId: 'acc_1', expiresAt: at(5 * MINUTE).toISOString(), used: false, credentialsVersion: 2 });
    // started before versions were recorded: a version no state has (never answered)
    const legacy = [{ type: 'TwoFactorChallengeStarted', data: { account_id: 'acc_1', expires_at: at(5 * MINUTE).toISOString() } } as TwoFactorChallengeEvent].reduce(twoFactorChallengeDecider.evolve, twoFactorChallengeDecider.initialState);
    expect(liveChallenge(legacy, NOW).credentialsVersion).toBeNull();
  });

  it('is used once within its 5 minutes', () => {
    givenChallenge([started]).when({ type: 'UseTwoFactorChallenge' }, at(4 * MINUTE)).then([{ type: 'TwoFactorChallengeUsed', data: { account_id: 'acc_1' } }]);
  });

  it('unknown, used or timed out: challenge_expired on challenge_id', () => {
    givenChallenge([]).when({ type: 'UseTwoFactorChallenge' }).refused('challenge_expired', 'challenge_id');
    givenChallenge([started, { type: 'TwoFactorChallengeUsed', data: { account_id: 'acc_1' } }]).when({ type: 'UseTwoFactorChallenge' }).refused('challenge_expired', 'challenge_id');
    givenChallenge([started]).when({ type: 'UseTwoFactorChallenge' }, at(5 * MINUTE)).refused('challenge_expired', 'challenge_id');
  });
});

describe('streams', () => {
  it('the person’s decider and the two-step decider share the person’s stream, each ignoring the other’s events', () => {
    const opened = { type: 'AccountOpened', data: { account_id: 'acc_1', email: 'a@b.example', password_hash: 'h', signup_id: null } };
    const stored = [opened, setupStarted(), enabled()];
    expect(foldWith(twoFactorDecider, stored).enabled).toMatchObject({ setupId: 'tfs_1', lastTimeStep: 100 });
    expect(foldWith(accountDecider, stored).account).toMatchObject({ id: 'acc_1' });
    expect(asTwoFactorEvent({ stream: 'account-acc_1', ...setupStarted() })).not.toBeNull();
    expect(asTwoFactorEvent({ stream: 'signup-sgn_1', ...setupStarted() })).toBeNull();
  });

  it('declares the challenge category with the accounts capability', () => {
    expect(ACCOUNT_STREAM_CATEGORIES).toContain(TWO_FACTOR_CHALLENGE_STREAM);
    expect(TWO_FACTOR_CHALLENGE_STREAM.stream('a'.repeat(64))).toBe(`two_factor_challenge-${'a'.repeat(64)}`);
  });
});
