import { assertDistinctCategories } from '@lib/eventstore';
import {
  ACCOUNT_EMAIL_STREAM,
  ACCOUNT_STREAM,
  ACCOUNT_STREAM_CATEGORIES,
  AccountCommand,
  AccountEmailCommand,
  AccountEmailEvent,
  AccountEvent,
  SIGNUP_STREAM,
  accountDecider,
  accountEmailDecider,
} from '@lib/accounts';
import { ALL_STREAM_CATEGORIES } from '@lib/wiring';
import { givenOn } from '../support/decider-spec';

/** given(events).when(command).then(events | refusal), on the person's decider (decision 0034). */
const given = (events: AccountEvent[]) => givenOn(accountDecider, events);

const givenAddress = (events: AccountEmailEvent[]) => givenOn(accountEmailDecider, events);

const opened: AccountEvent = { type: 'AccountOpened', data: { account_id: 'acc_1', email: 'ann@people.example', password_hash: '$argon2id$1', signup_id: 'sgn_a' } };
const joined: AccountEvent = { type: 'AccountBusinessJoined', data: { account_id: 'acc_1', business_id: 'biz_1', role: 'owner' } };
const session = (id: string): AccountEvent => ({ type: 'SessionStarted', data: { session_id: id, token_hash: `t-${id}`, device_hash: 'd', method: 'password', user_agent: null, expires_at: '2026-02-01T00:00:00.000Z' } });
const ended = (id: string, reason: 'signed_out' | 'revoked' | 'password_changed'): AccountEvent => ({ type: 'SessionEnded', data: { session_id: id, reason } });

describe('account decider', () => {
  it('opens an account once', () => {
    const open: AccountCommand = { type: 'OpenAccount', accountId: 'acc_1', email: 'ann@people.example', passwordHash: '$argon2id$1', signupId: 'sgn_a' };
    given([]).when(open).then([opened]);
    given([opened]).when(open).then([]);
  });

  it('records the businesses a person acts for, with their role, once', () => {
    given([opened]).when({ type: 'JoinBusiness', businessId: 'biz_1', role: 'owner' }).then([joined]);
    given([opened, joined]).when({ type: 'JoinBusiness', businessId: 'biz_1', role: 'owner' }).then([]);
    given([]).when({ type: 'JoinBusiness', businessId: 'biz_1', role: 'owner' }).refused('not_found');
  });

  it('starts sessions and ends them: another session revoked, the current one only by signing out (409 current_session); an unknown one 404', () => {
    given([opened]).when({ type: 'StartSession', session: session('ses_1').data as never }).then([session('ses_1')]);
    const two = [opened, session('ses_1'), session('ses_2')];
    given(two).when({ type: 'EndSession', sessionId: 'ses_1', currentSessionId: 'ses_2', reason: 'revoked' }).then([ended('ses_1', 'revoked')]);
    given(two).when({ type: 'EndSession', sessionId: 'ses_2', currentSessionId: 'ses_2', reason: 'revoked' }).refused('current_session');
    given(two).when({ type: 'EndSession', sessionId: 'ses_2', currentSessionId: null, reason: 'signed_out' }).then([ended('ses_2', 'signed_out')]);
    given([...two, ended('ses_1', 'revoked')]).when({ type: 'EndSession', sessionId: 'ses_1', currentSessionId: 'ses_2', reason: 'revoked' }).refused('not_found');
  });

  it('changes the password and ends every other session', () => {
    given([opened, session('ses_1'), session('ses_2'), session('ses_3')])
      .when({ type: 'ChangePassword', passwordHash: '$argon2id$2', keepSessionId: 'ses_2' })
      .then([{ type: 'AccountPasswordChanged', data: { account_id: 'acc_1', password_hash: '$argon2id$2' } }, ended('ses_1', 'password_changed'), ended('ses_3', 'password_changed')]);
  });

  it('given a change from another session that ended this one, when this session changes the password too, then 401 unauthenticated: no second password reported as set (people audit O2, 2026-11-29)', () => {
    const firstChange: AccountEvent[] = [{ type: 'AccountPasswordChanged', data: { account_id: 'acc_1', password_hash: '$argon2id$2' } }, ended('ses_2', 'password_changed'), ended('ses_3', 'password_changed')];
    given([opened, session('ses_1'), session('ses_2'), session('ses_3'), ...firstChange]).when({ type: 'ChangePassword', passwordHash: '$argon2id$3', keepSessionId: 'ses_2' }).refused('unauthenticated');
    // the session that made the first change may change it again
    given([opened, session('ses_1'), session('ses_2'), session('ses_3'), ...firstChange])
      .when({ type: 'ChangePassword', passwordHash: '$argon2id$3', keepSessionId: 'ses_1' })
      .then([{ type: 'AccountPasswordChanged', data: { account_id: 'acc_1', password_hash: '$argon2id$3' } }]);
  });

  it('sets a first password (no current one given) only while the person has none: else invalid_request on current_password (decision 0037 addendum)', () => {
    const passwordless: AccountEvent = { type: 'AccountOpened', data: { account_id: 'acc_1', email: 'ann@people.example', password_hash: null, signup_id: 'sgn_a' } };
    given([passwordless, session('ses_1'), session('ses_2')])
      .when({ type: 'ChangePassword', passwordHash: '$argon2id$1', keepSessionId: 'ses_2', first: true })
      .then([{ type: 'AccountPasswordChanged', data: { account_id: 'acc_1', password_hash: '$argon2id$1' } }, ended('ses_1', 'password_changed')]);
    given([opened]).when({ type: 'ChangePassword', passwordHash: '$argon2id$2', keepSessionId: null, first: true }).refused('invalid_request', 'current_password');
    const firstSet: AccountEvent = { type: 'AccountPasswordChanged', data: { account_id: 'acc_1', password_hash: '$argon2id$1' } };
    given([passwordless, firstSet]).when({ type: 'ChangePassword', passwordHash: '$argon2id$2', keepSessionId: null, first: true }).refused('invalid_request', 'current_password');
  });
});

describe('account e-mail decider', () => {
  const noted = (signupId: string): AccountEmailEvent => ({ type: 'AccountEmailSignupStarted', data: { email: 'ann@people.example', signup_id: signupId } });
  const claimed: AccountEmailEvent = { type: 'AccountEmailClaimed', data: { email: 'ann@people.example', account_id: 'acc_1' } };

  it('notes the pending sign-up (a newer one replaces it); an address an account holds is 409 email_taken', () => {
    givenAddress([]).when({ type: 'NoteSignup', email: 'ann@people.example', signupId: 'sgn_a' }).then([noted('sgn_a')]);
    givenAddress([noted('sgn_a')]).when({ type: 'NoteSignup', email: 'ann@people.example', signupId: 'sgn_b' }).then([noted('sgn_b')]);
    givenAddress([noted('sgn_a'), claimed]).when({ type: 'NoteSignup', email: 'ann@people.example', signupId: 'sgn_b' }).refused('email_taken', 'email');
  });

  it('is claimed only by the pending sign-up, once', () => {
    const claim = (signupId: string, accountId = 'acc_1'): AccountEmailCommand => ({ type: 'ClaimAccountEmail', email: 'ann@people.example', accountId, signupId });
    givenAddress([noted('sgn_a')]).when(claim('sgn_a')).then([claimed]);
    givenAddress([noted('sgn_a'), noted('sgn_b')]).when(claim('sgn_a')).refused('verification_expired');
    givenAddress([noted('sgn_a'), claimed]).when(claim('sgn_a')).then([]);
    givenAddress([noted('sgn_a'), claimed]).when(claim('sgn_a', 'acc_2')).refused('email_taken', 'email');
  });
});

describe('account streams', () => {
  it('are named once, distinct from every other capability’s', () => {
    expect(ACCOUNT_STREAM.stream('acc_1')).toBe('account-acc_1');
    expect(ACCOUNT_EMAIL_STREAM.stream('a'.repeat(64))).toBe(`account_email-${'a'.repeat(64)}`);
    expect(SIGNUP_STREAM.stream('sgn_1')).toBe('signup-sgn_1');
    expect(ACCOUNT_STREAM.owns(`account_email-${'a'.repeat(64)}`)).toBe(false);
    for (const category of ACCOUNT_STREAM_CATEGORIES) expect(ALL_STREAM_CATEGORIES).toContain(category);
    expect(() => assertDistinctCategories(ALL_STREAM_CATEGORIES)).not.toThrow();
  });
});
