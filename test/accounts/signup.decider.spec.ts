import { DomainRefusal } from '@lib/domain';
import { SignupCommand, SignupEvent, SignupState, TrySignupCode, signupDecider } from '@lib/accounts';
import { thrownBy } from '../support/thrown';

/** given(events).when(command, now).then(events | refusal code, field and Retry-After), on the sign-up decider (decision 0034). */
function given(events: SignupEvent[]) {
  const state = events.reduce<SignupState>(signupDecider.evolve, signupDecider.initialState);
  return {
    when: (command: SignupCommand, now: string) => ({
      then: (expected: SignupEvent[]) => expect(signupDecider.decide(command, state, { now: new Date(now) })).toEqual(expected),
      refused: (code: string, field: string | null = null, retryAfter?: number) => {
        const refusal = thrownBy(DomainRefusal, () => signupDecider.decide(command, state, { now: new Date(now) }));
        expect({ code: refusal.code, field: refusal.field, retryAfter: refusal.details.retry_after }).toEqual({ code, field, retryAfter });
      },
    }),
  };
}

const T0 = '2026-01-01T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const code = (hash: string, sentSeconds: number): SignupEvent => ({ type: 'SignupCodeSent', data: { code_hash: hash, sent_at: at(sentSeconds), expires_at: at(sentSeconds + 900), delivered: true } });
const started: SignupEvent = {
  type: 'SignupStarted',
  data: { signup_id: 'sgn_a', email: 'ann@people.example', password_hash: '$argon2id$p', business_name: 'Shop', simulated: false, browser_hash: 'b'.repeat(64), expires_at: at(86_400) },
};
const sent = code('h1', 0);
const rejected: SignupEvent = { type: 'SignupCodeRejected', data: { signup_id: 'sgn_a' } };
const completed: SignupEvent = { type: 'SignupCompleted', data: { signup_id: 'sgn_a', account_id: 'acc_1' } };

const attempt = (over: Partial<TrySignupCode> = {}): TrySignupCode => ({
  type: 'TrySignupCode',
  checkedHash: 'h1',
  codeMatches: true,
  sameBrowser: true,
  passwordGiven: false,
  passwordMatches: false,
  replaced: false,
  accountId: 'acc_1',
  ...over,
});

describe('sign-up decider', () => {
  it('starts a sign-up with its first code on an empty stream; starting it again changes nothing', () => {
    const start: SignupCommand = { type: 'StartSignup', signup: started.data as never, code: sent.data as never };
    given([]).when(start, T0).then([started, sent]);
    given([started, sent]).when(start, T0).then([]);
  });

  it('keeps the referral code a sign-up gave for the first business (decision 0035); none given is null, as for sign-ups recorded before', () => {
    const fold = (events: SignupEvent[]) => events.reduce<SignupState>(signupDecider.evolve, signupDecider.initialState).signup;
    const referred: SignupEvent = { type: 'SignupStarted', data: { ...(started.data as object), referral_code: 'corner-shop' } as never };
    const start: SignupCommand = { type: 'StartSignup', signup: referred.data as never, code: sent.data as never };
    given([]).when(start, T0).then([referred, sent]);
    expect(fold([referred, sent])?.referralCode).toBe('corner-shop');
    expect(fold([started, sent])?.referralCode).toBeNull();
  });

  it('completes with the right code in the starting browser', () => {
    given([started, sent]).when(attempt(), at(60)).then([completed]);
  });

  it('records a wrong code (or a code checked against an older hash) instead of refusing', () => {
    given([started, sent]).when(attempt({ codeMatches: false }), at(60)).then([rejected]);
    given([started, sent, code('h2', 70)]).when(attempt({ checkedHash: 'h1' }), at(80)).then([rejected]);
  });

  it('locks a code after 5 wrong tries (429 too_many_attempts, Retry-After until the dead code expires, then code_expired); a new code unlocks', () => {
    const five = [started, sent, rejected, rejected, rejected, rejected, rejected];
    given(five).when(attempt(), at(10)).refused('too_many_attempts', null, 890);
    given(five).when(attempt(), at(300)).refused('too_many_attempts', null, 600);
    given(five).when(attempt(), at(899.5)).refused('too_many_attempts', null, 1);
    given(five).when(attempt(), at(900)).refused('code_expired', 'code');
    // a code sent near the sign-up's end: the refusal ends with the sign-up (then verification_expired)
    const late = [started, code('h9', 86_000), rejected, rejected, rejected, rejected, rejected];
    given(late).when(attempt({ checkedHash: 'h9' }), at(86_100)).refused('too_many_attempts', null, 300);
    given(late).when(attempt({ checkedHash: 'h9' }), at(86_400)).refused('verification_expired');
    given([...five, code('h2', 400)]).when(attempt({ checkedHash: 'h2' }), at(410)).then([completed]);
  });

  it('refuses an expired code (15 minutes), a finished, replaced or day-old sign-up', () => {
    given([started, sent]).when(attempt(), at(900)).refused('code_expired', 'code');
    given([started, sent, completed]).when(attempt(), at(60)).refused('verification_expired');
    given([started, sent]).when(attempt({ replaced: true }), at(60)).refused('verification_expired');
    given([started, sent]).when(attempt(), at(86_400)).refused('verification_expired');
    given([]).when(attempt(), at(60)).refused('verification_expired');
  });

  it('in another browser needs the password (password_required before the code is judged) and a matching one', () => {
    given([started, sent]).when(attempt({ sameBrowser: false, codeMatches: false }), at(60)).refused('password_required', 'password');
    given([started, sent]).when(attempt({ sameBrowser: false, passwordGiven: true, passwordMatches: false }), at(60)).refused('invalid_credentials', 'password');
    given([started, sent]).when(attempt({ sameBrowser: false, passwordGiven: true, passwordMatches: true }), at(60)).then([completed]);
  });

  it('sends a new code a minute after the last, at most 5 per sign-up (429 too_many_emails with Retry-After)', () => {
    const resend = (s: number): SignupCommand => ({ type: 'ResendSignupCode', code: code('hn', s).data as never, replaced: false });
    given([started, sent]).when(resend(30), at(30)).refused('too_many_emails', null, 30);
    given([started, sent]).when(resend(60), at(60)).then([code('hn', 60)]);
    const five = [started, sent, code('h2', 60), code('h3', 120), code('h4', 180), code('h5', 240)];
    given(five).when(resend(400), at(400)).refused('too_many_emails', null, undefined); // no Retry-After: the sign-up must start again
    given([started, sent, completed]).when(resend(400), at(400)).refused('verification_expired');
    given([started, sent]).when({ type: 'ResendSignupCode', code: code('hn', 60).data as never, replaced: true }, at(60)).refused('verification_expired');
  });

  describe('a passkey sign-up (no password; decision 0037)', () => {
    const passwordless: SignupEvent = { type: 'SignupStarted', data: { ...(started.data as object), password_hash: null, account_id: 'acc_p' } as never };
    const done: SignupEvent = { type: 'SignupCompleted', data: { signup_id: 'sgn_a', account_id: 'acc_p' } };
    const withPasskey = (over: Partial<TrySignupCode> = {}) => attempt({ accountId: 'acc_p', passkey: 'verified', ...over });

    it('keeps the account id chosen at the start (the passkey’s user handle) and no password', () => {
      const state = [passwordless, sent].reduce<SignupState>(signupDecider.evolve, signupDecider.initialState);
      expect(state.signup).toMatchObject({ passwordHash: null, accountId: 'acc_p' });
      expect([started, sent].reduce<SignupState>(signupDecider.evolve, signupDecider.initialState).signup).toMatchObject({ accountId: null });
    });

    it('completes with the right code and a verified passkey in the starting browser', () => {
      given([passwordless, sent]).when(withPasskey(), at(60)).then([done]);
    });

    it('in another browser: 400 signup_browser_required before the code is judged (no try spent), even with a password', () => {
      given([passwordless, sent]).when(withPasskey({ sameBrowser: false }), at(60)).refused('signup_browser_required');
      given([passwordless, sent]).when(withPasskey({ sameBrowser: false, codeMatches: false }), at(60)).refused('signup_browser_required');
      given([passwordless, sent]).when(withPasskey({ sameBrowser: false, passwordGiven: true, passwordMatches: true }), at(60)).refused('signup_browser_required');
      given([passwordless, sent]).when(withPasskey({ sameBrowser: false }), at(900)).refused('signup_browser_required'); // before code_expired too
    });

    it('takes no password, and needs the passkey’s registration (400 invalid_request, before the code)', () => {
      given([passwordless, sent]).when(withPasskey({ passwordGiven: true }), at(60)).refused('invalid_request', 'password');
      given([passwordless, sent]).when(withPasskey({ passkey: 'none', codeMatches: false }), at(60)).refused('invalid_request', 'credential');
      given([passwordless, sent]).when(withPasskey({ passkey: undefined }), at(60)).refused('invalid_request', 'credential');
    });

    it('a password sign-up takes no passkey registration (400 invalid_request)', () => {
      given([started, sent]).when(attempt({ passkey: 'verified' }), at(60)).refused('invalid_request', 'credential');
    });

    it('the code rules still hold: a wrong code is recorded whatever the passkey, an old one refused, 5 wrong tries lock', () => {
      given([passwordless, sent]).when(withPasskey({ codeMatches: false, passkey: 'failed' }), at(60)).then([rejected]);
      given([passwordless, sent]).when(withPasskey({ passkey: 'failed' }), at(900)).refused('code_expired', 'code');
      given([passwordless, sent, rejected, rejected, rejected, rejected, rejected]).when(withPasskey(), at(10)).refused('too_many_attempts', null, 890);
      given([passwordless, sent, done]).when(withPasskey(), at(60)).refused('verification_expired');
    });

    it('a right code with a registration that did not verify: 400 passkey_failed, nothing recorded (no try spent); one already on an account: 409 passkey_exists', () => {
      given([passwordless, sent]).when(withPasskey({ passkey: 'failed' }), at(60)).refused('passkey_failed', 'credential');
      given([passwordless, sent]).when(withPasskey({ passkey: 'exists' }), at(60)).refused('passkey_exists', 'credential');
    });
  });

  it('a new code resets the wrong tries', () => {
    const state = [started, sent, rejected, rejected, code('h2', 60)].reduce<SignupState>(signupDecider.evolve, signupDecider.initialState);
    expect(state.code).toEqual({ hash: 'h2', sentAt: at(60), expiresAt: at(960), wrongTries: 0 });
    expect(state.codesSent).toBe(2);
  });
});
