import { DomainRefusal } from '@lib/domain';
import {
  AccountEmailEvent,
  AccountEmailState,
  AccountStreamEvent,
  EmailChangeStartedData,
  RecoveryCommand,
  accountEmailDecider,
  passkeyDecider,
  recoveryDecider,
  twoFactorDecider,
  undoneNotice,
} from '@lib/accounts';
import { foldWith } from '@lib/domain';
import { givenWith } from '../support/decider-spec';
import { thrownBy } from '../support/thrown';

/** given(events).when(command, now).then(events | refusal), on the recovery decider of decision 0038. */
function given(events: AccountStreamEvent[]) {
  const on = givenWith(recoveryDecider, events);
  return { when: (command: RecoveryCommand, now: Date = T0) => on.when(command, { now }) };
}

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const opened: AccountStreamEvent = { type: 'AccountOpened', data: { account_id: 'acc_1', email: 'ann@people.example', password_hash: '$argon2id$1', signup_id: 'sgn_a' } };
const session = (id: string): AccountStreamEvent => ({ type: 'SessionStarted', data: { session_id: id, token_hash: `t-${id}`, device_hash: 'd', method: 'password', user_agent: null, expires_at: '2026-04-01T00:00:00.000Z' } });
const requested = (id: string, hash: string, when: Date = T0): AccountStreamEvent => ({
  type: 'PasswordResetRequested',
  data: { reset_id: id, token_hash: hash, requested_at: when.toISOString(), expires_at: new Date(when.getTime() + HOUR).toISOString() },
});
const change = (id: string, email: string, when: Date = T0): EmailChangeStartedData => ({
  change_id: id,
  new_email: email,
  code_hash: `code-${id}`,
  sent_at: when.toISOString(),
  code_expires_at: new Date(when.getTime() + 15 * MIN).toISOString(),
  expires_at: new Date(when.getTime() + DAY).toISOString(),
  delivered: true,
});
const started = (id: string, email: string, when: Date = T0): AccountStreamEvent => ({ type: 'EmailChangeStarted', data: change(id, email, when) });
const changed: AccountStreamEvent = {
  type: 'AccountEmailChanged',
  data: { change_id: 'emc_1', old_email: 'ann@people.example', new_email: 'new@people.example', undo_token_hash: 'undo-1', undo_expires_at: at(7 * DAY).toISOString() },
};

describe('recovery decider: password resets', () => {
  it('records a reset link; at most 3 an hour (then nothing), a fourth an hour after the first', () => {
    given([opened]).when({ type: 'RequestPasswordReset', resetId: 'pwr_1', tokenHash: 'h1' }).then([requested('pwr_1', 'h1')]);
    const three = [opened, requested('pwr_1', 'h1', T0), requested('pwr_2', 'h2', at(10 * MIN)), requested('pwr_3', 'h3', at(20 * MIN))];
    given(three).when({ type: 'RequestPasswordReset', resetId: 'pwr_4', tokenHash: 'h4' }, at(30 * MIN)).then([]);
    given(three).when({ type: 'RequestPasswordReset', resetId: 'pwr_4', tokenHash: 'h4' }, at(HOUR + 1)).then([requested('pwr_4', 'h4', at(HOUR + 1))]);
  });

  it('completes the newest link within the hour: the password, the link used, every session ended', () => {
    given([opened, session('ses_a'), session('ses_b'), requested('pwr_1', 'h1')])
      .when({ type: 'CompletePasswordReset', tokenHash: 'h1', passwordHash: '$argon2id$new' }, at(59 * MIN))
      .then([
        { type: 'AccountPasswordChanged', data: { account_id: 'acc_1', password_hash: '$argon2id$new' } },
        { type: 'PasswordResetCompleted', data: { reset_id: 'pwr_1' } },
        { type: 'SessionEnded', data: { session_id: 'ses_a', reason: 'password_reset' } },
        { type: 'SessionEnded', data: { session_id: 'ses_b', reason: 'password_reset' } },
      ]);
  });

  it('refuses a used, replaced, expired or unknown link: invalid_token', () => {
    const complete: RecoveryCommand = { type: 'CompletePasswordReset', tokenHash: 'h1', passwordHash: 'x' };
    given([opened, requested('pwr_1', 'h1'), { type: 'PasswordResetCompleted', data: { reset_id: 'pwr_1' } }]).when(complete).refused('invalid_token', 'token');
    given([opened, requested('pwr_1', 'h1'), requested('pwr_2', 'h2')]).when(complete).refused('invalid_token', 'token');
    given([opened, requested('pwr_1', 'h1')]).when(complete, at(HOUR)).refused('invalid_token', 'token');
    given([opened]).when(complete).refused('invalid_token', 'token');
    given([opened, requested('pwr_1', 'h1'), changed]).when(complete).refused('invalid_token', 'token'); // sent to the old address
  });
});

describe('recovery decider: e-mail changes', () => {
  it('starts a change; at most 3 an hour (429 too_many_emails with Retry-After until the oldest leaves the hour)', () => {
    given([opened]).when({ type: 'StartEmailChange', change: change('emc_1', 'new@people.example') }).then([started('emc_1', 'new@people.example')]);
    const three = [opened, started('emc_1', 'a@x.example'), started('emc_2', 'b@x.example', at(10 * MIN)), started('emc_3', 'c@x.example', at(20 * MIN))];
    given(three).when({ type: 'StartEmailChange', change: change('emc_4', 'd@x.example', at(30 * MIN)) }, at(30 * MIN)).refused('too_many_emails', null, 30 * 60);
    given(three).when({ type: 'StartEmailChange', change: change('emc_4', 'd@x.example', at(HOUR)) }, at(HOUR + 1)).then([started('emc_4', 'd@x.example', at(HOUR))]);
  });

  it('a new code to the address pending only a minute after the last (429 too_many_emails); another address is a new change and waits for no minute (audit lim F3, 2026-11-30)', () => {
    const pending = [opened, started('emc_1', 'new@people.example')];
    given(pending).when({ type: 'StartEmailChange', change: change('emc_2', 'new@people.example', at(1000)) }, at(1000)).refused('too_many_emails', null, 59);
    given(pending).when({ type: 'StartEmailChange', change: change('emc_2', ' NEW@People.example', at(30_000)) }, at(30_000)).refused('too_many_emails', null, 30);
    given(pending).when({ type: 'StartEmailChange', change: change('emc_2', 'new@people.example', at(60_000)) }, at(60_000)).then([started('emc_2', 'new@people.example', at(60_000))]);
    given(pending).when({ type: 'StartEmailChange', change: change('emc_2', 'other@people.example', at(1000)) }, at(1000)).then([started('emc_2', 'other@people.example', at(1000))]);
    // both the minute and the 3 an hour hold: Retry-After is the longer (the hour's)
    const three = [opened, started('emc_1', 'a@x.example'), started('emc_2', 'b@x.example', at(10 * MIN)), started('emc_3', 'c@x.example', at(20 * MIN))];
    given(three).when({ type: 'StartEmailChange', change: change('emc_4', 'c@x.example', at(20 * MIN + 1000)) }, at(20 * MIN + 1000)).refused('too_many_emails', null, 40 * 60 - 1);
  });

  it('5 wrong codes with 3 changes started in the hour: Retry-After is until the dead code expires, then code_expired (audit lim F1, 2026-11-30)', () => {
    const rejected = (id: string): AccountStreamEvent => ({ type: 'EmailChangeCodeRejected', data: { change_id: id } });
    const three = [opened, started('emc_1', 'a@x.example'), started('emc_2', 'b@x.example', at(10 * MIN)), started('emc_3', 'c@x.example', at(20 * MIN))];
    const locked = [...three, ...Array.from({ length: 5 }, () => rejected('emc_3'))];
    const wrong: RecoveryCommand = { type: 'TryEmailChangeCode', checkedHash: 'code-emc_3', codeMatches: false, undoTokenHash: '' };
    given(locked).when(wrong, at(25 * MIN)).refused('too_many_attempts', null, 10 * 60);
    given(locked).when(wrong, at(35 * MIN)).refused('code_expired', 'code');
    // a new change (a new code) may start once the oldest of the three leaves the hour, one second earlier it may not
    given(locked).when({ type: 'StartEmailChange', change: change('emc_4', 'd@x.example', at(HOUR)) }, at(HOUR)).then([started('emc_4', 'd@x.example', at(HOUR))]);
    given(locked).when({ type: 'StartEmailChange', change: change('emc_4', 'd@x.example', at(HOUR - 1000)) }, at(HOUR - 1000)).refused('too_many_emails', null, 1);
  });

  it('confirms the pending change with its code; the undo link recorded by its hash', () => {
    given([opened, started('emc_1', 'new@people.example')])
      .when({ type: 'TryEmailChangeCode', checkedHash: 'code-emc_1', codeMatches: true, undoTokenHash: 'undo-1' })
      .then([changed]);
  });

  it('records a wrong code; 5 wrong → too_many_attempts; older than 15 minutes → code_expired; none, replaced-by-confirmation or a day old → verification_expired', () => {
    const wrong: RecoveryCommand = { type: 'TryEmailChangeCode', checkedHash: 'code-emc_1', codeMatches: false, undoTokenHash: '' };
    const pending = [opened, started('emc_1', 'new@people.example')];
    given(pending).when(wrong).then([{ type: 'EmailChangeCodeRejected', data: { change_id: 'emc_1' } }]);
    const rejected: AccountStreamEvent = { type: 'EmailChangeCodeRejected', data: { change_id: 'emc_1' } };
    // Retry-After: until the dead code expires, when the refusal becomes code_expired (audit lim F1, 2026-11-30; was 1 s, for ever)
    given([...pending, rejected, rejected, rejected, rejected, rejected]).when(wrong).refused('too_many_attempts', null, 15 * 60);
    given([...pending, rejected, rejected, rejected, rejected, rejected]).when(wrong, at(10 * MIN)).refused('too_many_attempts', null, 5 * 60);
    given([...pending, rejected, rejected, rejected, rejected, rejected]).when(wrong, at(15 * MIN)).refused('code_expired', 'code');
    given(pending).when(wrong, at(15 * MIN)).refused('code_expired', 'code');
    given([opened]).when(wrong).refused('verification_expired');
    given([...pending, changed]).when(wrong).refused('verification_expired');
    given(pending).when(wrong, at(DAY)).refused('verification_expired');
    // a newer change replaces the pending one: the old code's hash no longer matches
    given([...pending, started('emc_2', 'other@people.example')]).when({ type: 'TryEmailChangeCode', checkedHash: 'code-emc_1', codeMatches: true, undoTokenHash: 'u' }).then([{ type: 'EmailChangeCodeRejected', data: { change_id: 'emc_2' } }]);
  });

  it('undoes a change: the old address back, a reset required and held a day, every session ended; once', () => {
    const undo: RecoveryCommand = { type: 'UndoEmailChange', tokenHash: 'undo-1' };
    given([opened, session('ses_a'), started('emc_1', 'new@people.example'), changed])
      .when(undo, at(HOUR))
      .then([
        { type: 'EmailChangeUndone', data: { change_id: 'emc_1', email: 'ann@people.example', from_email: 'new@people.example' } },
        { type: 'PasswordResetRequired', data: { reason: 'email_change_undone', hold_until: at(HOUR + DAY).toISOString() } },
        { type: 'SessionEnded', data: { session_id: 'ses_a', reason: 'email_change_undone' } },
      ]);
    const undone: AccountStreamEvent = { type: 'EmailChangeUndone', data: { change_id: 'emc_1', email: 'ann@people.example', from_email: 'new@people.example' } };
    given([opened, changed, undone]).when(undo).refused('invalid_token', 'token');
    given([opened, changed]).when(undo, at(7 * DAY)).refused('invalid_token', 'token');
    given([opened, changed]).when({ type: 'UndoEmailChange', tokenHash: 'other' }).refused('invalid_token', 'token');
  });

  it('holds a reset a day after an undo (409 reset_on_hold with Retry-After), then lets it through and lifts the requirement', () => {
    const hold: AccountStreamEvent = { type: 'PasswordResetRequired', data: { reason: 'email_change_undone', hold_until: at(DAY).toISOString() } };
    const complete: RecoveryCommand = { type: 'CompletePasswordReset', tokenHash: 'h1', passwordHash: 'p' };
    given([opened, hold, requested('pwr_1', 'h1', at(HOUR))]).when(complete, at(90 * MIN)).refused('reset_on_hold', null, (DAY - 90 * MIN) / 1000);
    given([opened, hold, requested('pwr_1', 'h1', at(DAY))]).when(complete, at(DAY + MIN)).then([
      { type: 'AccountPasswordChanged', data: { account_id: 'acc_1', password_hash: 'p' } },
      { type: 'PasswordResetCompleted', data: { reset_id: 'pwr_1' } },
    ]);
    const state = [opened, hold, requested('pwr_1', 'h1', at(DAY)), { type: 'PasswordResetCompleted', data: { reset_id: 'pwr_1' } } as AccountStreamEvent].reduce(recoveryDecider.evolve, recoveryDecider.initialState);
    expect([state.resetRequired, state.holdUntil]).toEqual([false, null]);
  });
});

describe('recovery decider: an undo takes away every way in (addendum of 2026-11-28)', () => {
  const passkey = (n: number): AccountStreamEvent => ({
    type: 'PasskeyAdded',
    data: { passkey_id: `pky_${n}`, credential_id: `cred${n}`, public_key: 'pQECAyYgASFYIA', counter: 0, transports: ['internal'], name: 'Passkey', device_type: 'multiDevice', backed_up: true },
  });
  const setup = (id: string): AccountStreamEvent => ({ type: 'TwoFactorSetupStarted', data: { setup_id: id, session_id: 'ses_a', expires_at: at(10 * MIN).toISOString() } });
  const twoStepOn = (id: string): AccountStreamEvent => ({ type: 'TwoFactorEnabled', data: { setup_id: id, recovery_code_hashes: ['r1', 'r2'], time_step: 100, enabled_at: T0.toISOString() } });
  const removed = (n: number): AccountStreamEvent => ({ type: 'PasskeyRemoved', data: { passkey_id: `pky_${n}`, reason: 'email_change_undone' } });
  const twoStepOff = (id: string): AccountStreamEvent => ({ type: 'TwoFactorDisabled', data: { setup_id: id, reason: 'email_change_undone' } });
  const undoneEvents = (until: Date): AccountStreamEvent[] => [
    { type: 'EmailChangeUndone', data: { change_id: 'emc_1', email: 'ann@people.example', from_email: 'new@people.example' } },
    { type: 'PasswordResetRequired', data: { reason: 'email_change_undone', hold_until: new Date(until.getTime() + DAY).toISOString() } },
  ];
  const undo: RecoveryCommand = { type: 'UndoEmailChange', tokenHash: 'undo-1' };

  it('removes every passkey — those added before the change began too — and turns two-step sign-in off, in the same decision as the undo', () => {
    // the owner's passkey, then the intruder's passkey and authenticator, all before the change was started
    given([opened, passkey(1), session('ses_a'), passkey(2), setup('tfs_1'), twoStepOn('tfs_1'), started('emc_1', 'new@people.example'), changed])
      .when(undo, at(HOUR))
      .then([...undoneEvents(at(HOUR)), { type: 'SessionEnded', data: { session_id: 'ses_a', reason: 'email_change_undone' } }, removed(1), removed(2), twoStepOff('tfs_1')]);
  });

  it('removes only what is there: a passkey already removed stays removed, two-step sign-in already off (or only a setup begun) is not turned off again', () => {
    const byPerson: AccountStreamEvent = { type: 'PasskeyRemoved', data: { passkey_id: 'pky_1' } };
    const offByPerson: AccountStreamEvent = { type: 'TwoFactorDisabled', data: { setup_id: 'tfs_1' } };
    given([opened, passkey(1), passkey(2), byPerson, setup('tfs_1'), twoStepOn('tfs_1'), offByPerson, setup('tfs_2'), changed])
      .when(undo, at(HOUR))
      .then([...undoneEvents(at(HOUR)), removed(2)]);
    given([opened, changed]).when(undo, at(HOUR)).then(undoneEvents(at(HOUR)));
  });

  it('leaves the other deciders without them: the passkey is unknown at sign-in, a two-step challenge is over, GET /me/two-factor is off', () => {
    const events = [opened, session('ses_a'), passkey(1), setup('tfs_1'), twoStepOn('tfs_1'), changed];
    const after = [...events, ...recoveryDecider.decide(undo, events.reduce(recoveryDecider.evolve, recoveryDecider.initialState), { now: at(HOUR) })];
    const stored = after.map((e) => ({ stream: 'account-acc_1', ...e }));
    const passkeys = foldWith(passkeyDecider, stored);
    expect(passkeys.passkeys).toEqual([]);
    expect(thrownBy(DomainRefusal, () => passkeyDecider.decide({ type: 'UsePasskey', passkeyId: 'pky_1', counter: 1, at: at(HOUR).toISOString() }, passkeys, undefined)).code).toBe('passkey_unknown');
    const twoStep = foldWith(twoFactorDecider, stored);
    expect(twoStep.enabled).toBeNull();
    expect(thrownBy(DomainRefusal, () => twoFactorDecider.decide({ type: 'AcceptTwoFactorCode', proof: { kind: 'totp', timeStep: 101 }, credentialsVersion: 0 }, twoStep, { now: at(HOUR) })).code).toBe('challenge_expired');
    // and the recovery state folded from the stored events counts what went (the reset e-mail says it) until the reset
    const state = foldWith(recoveryDecider, stored);
    expect([state.passkeys, state.twoFactorSetupId, state.undoRemoved]).toEqual([[], null, { passkeys: 1, twoFactor: true }]);
    expect(undoneNotice(state.undoRemoved!)).toContain('removed its passkey and turned two-step sign-in off');
    const reset = [...after, requested('pwr_1', 'h1', at(DAY + 2 * HOUR)), { type: 'PasswordResetCompleted', data: { reset_id: 'pwr_1' } } as AccountStreamEvent];
    expect(reset.reduce(recoveryDecider.evolve, recoveryDecider.initialState).undoRemoved).toBeNull();
  });

  it('the reset that lifts the lock removes a passkey or two-step sign-in added during it (only a session racing the undo could); a reset without an undo removes nothing', () => {
    const lock = undoneEvents(T0);
    given([opened, ...lock, passkey(3), setup('tfs_9'), twoStepOn('tfs_9'), requested('pwr_1', 'h1', at(DAY))])
      .when({ type: 'CompletePasswordReset', tokenHash: 'h1', passwordHash: 'p' }, at(DAY + MIN))
      .then([
        { type: 'AccountPasswordChanged', data: { account_id: 'acc_1', password_hash: 'p' } },
        { type: 'PasswordResetCompleted', data: { reset_id: 'pwr_1' } },
        removed(3),
        twoStepOff('tfs_9'),
      ]);
    given([opened, passkey(1), setup('tfs_1'), twoStepOn('tfs_1'), requested('pwr_1', 'h1')])
      .when({ type: 'CompletePasswordReset', tokenHash: 'h1', passwordHash: 'p' }, at(MIN))
      .then([
        { type: 'AccountPasswordChanged', data: { account_id: 'acc_1', password_hash: 'p' } },
        { type: 'PasswordResetCompleted', data: { reset_id: 'pwr_1' } },
      ]);
  });
});

describe('address decider: claims moved by e-mail changes', () => {
  const fold = (events: AccountEmailEvent[]) => events.reduce<AccountEmailState>(accountEmailDecider.evolve, accountEmailDecider.initialState);
  const claimed: AccountEmailEvent = { type: 'AccountEmailClaimed', data: { email: 'a@x.example', account_id: 'acc_1' } };
  const released: AccountEmailEvent = { type: 'AccountEmailReleased', data: { email: 'a@x.example', account_id: 'acc_1' } };

  it('claims a free address for a change (a pending sign-up replaced), again for its holder changes nothing, another holder → email_taken', () => {
    expect(accountEmailDecider.decide({ type: 'ClaimEmailForChange', email: 'a@x.example', accountId: 'acc_1' }, fold([{ type: 'AccountEmailSignupStarted', data: { email: 'a@x.example', signup_id: 'sgn_1' } }]), undefined)).toEqual([claimed]);
    expect(accountEmailDecider.decide({ type: 'ClaimEmailForChange', email: 'a@x.example', accountId: 'acc_1' }, fold([claimed]), undefined)).toEqual([]);
    const refusal = thrownBy(DomainRefusal, () => accountEmailDecider.decide({ type: 'ClaimEmailForChange', email: 'a@x.example', accountId: 'acc_2' }, fold([claimed]), undefined));
    expect([refusal.code, refusal.field]).toEqual(['email_taken', 'email']);
  });

  it('releases an address its holder leaves (then a sign-up or another account may take it); a non-holder releases nothing', () => {
    expect(accountEmailDecider.decide({ type: 'ReleaseAccountEmail', email: 'a@x.example', accountId: 'acc_1' }, fold([claimed]), undefined)).toEqual([released]);
    expect(accountEmailDecider.decide({ type: 'ReleaseAccountEmail', email: 'a@x.example', accountId: 'acc_2' }, fold([claimed]), undefined)).toEqual([]);
    expect(fold([claimed, released]).holder).toBeNull();
    expect(accountEmailDecider.decide({ type: 'NoteSignup', email: 'a@x.example', signupId: 'sgn_2' }, fold([claimed, released]), undefined)).toEqual([{ type: 'AccountEmailSignupStarted', data: { email: 'a@x.example', signup_id: 'sgn_2' } }]);
    expect(accountEmailDecider.decide({ type: 'ClaimEmailForChange', email: 'a@x.example', accountId: 'acc_2' }, fold([claimed, released]), undefined)).toEqual([{ type: 'AccountEmailClaimed', data: { email: 'a@x.example', account_id: 'acc_2' } }]);
  });
});
