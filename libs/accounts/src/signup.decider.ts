import { Decider, DomainRefusal, decideBy, ignoreUnknown, repeatedCreation } from '@lib/domain';
import { EMAILED_CODE_RULES, emailedCodeAttempt, emailedCodeResend } from '@lib/limits';
import { SignupCodeSentData, SignupEvent, SignupStartedData, asSignupEvent } from './events';

/**
 * One sign-up's pure decider over `signup-<sgn_id>` (decision 0034), with given/when/then tests
 * in test/accounts/signup.decider.spec.ts. Everything impure — the time, whether the code the
 * person typed matches the hash (argon2id), whether the request came from the browser that
 * started the sign-up, whether a newer sign-up replaced this one — comes in the command or the
 * context, so the rules here are plain:
 *
 * - a sign-up lives a day, ends when completed, and is replaced by a newer one for the same
 *   address: then 400 verification_expired;
 * - a code is valid 15 minutes (400 code_expired); 5 wrong tries lock it (429 too_many_attempts
 *   until a new code, Retry-After: until the dead code expires — or the sign-up, if sooner —
 *   when the answer becomes 400 code_expired; addendum of 2026-11-30); a new code a minute after
 *   the last, at most 5 per sign-up (429 too_many_emails) — libs/limits' e-mailed-code rules
 *   (emailedCodeAttempt, emailedCodeResend);
 * - finished in another browser (no sign-up cookie), the chosen password must be given again
 *   (400 password_required) and match (400 invalid_credentials);
 * - a passkey sign-up (no password; decision 0037) is finished only in the browser that started
 *   it (400 signup_browser_required, before the code: it costs no try), with the passkey's
 *   registration and without a password (400 invalid_request); a right code with a registration
 *   that did not verify is 400 passkey_failed (409 passkey_exists for a credential already on an
 *   account) and spends nothing: the code was right.
 *
 * A wrong code is recorded (SignupCodeRejected) rather than thrown: the handler answers 400
 * invalid_code after the append, so the count survives.
 */

export const SIGNUP_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const CODE_LIFETIME_MS = EMAILED_CODE_RULES.validForSec * 1000;
export const CODE_RESEND_AFTER_MS = EMAILED_CODE_RULES.resendAfterSec * 1000;

export interface SignupRecord {
  id: string;
  email: string;
  /** Null for a passkey sign-up. */
  passwordHash: string | null;
  /** The account a passkey sign-up opens (its passkey's user handle); null on a password sign-up. */
  accountId: string | null;
  businessName: string;
  simulated: boolean;
  /** The referral code given at sign-up (folded), or null. */
  referralCode: string | null;
  browserHash: string;
  expiresAt: string;
}

export interface SignupCode {
  hash: string;
  sentAt: string;
  expiresAt: string;
  wrongTries: number;
}

export interface SignupState {
  signup: SignupRecord | null;
  code: SignupCode | null;
  codesSent: number;
  completedBy: string | null;
}

export interface StartSignup {
  type: 'StartSignup';
  signup: SignupStartedData;
  code: SignupCodeSentData;
}

export interface ResendSignupCode {
  type: 'ResendSignupCode';
  code: SignupCodeSentData;
  /** A newer sign-up for the address replaced this one. */
  replaced: boolean;
}

export interface TrySignupCode {
  type: 'TrySignupCode';
  /** The code hash the handler compared the typed code with, and whether it matched. */
  checkedHash: string | null;
  codeMatches: boolean;
  /** The request carried the sign-up cookie of the browser that started it. */
  sameBrowser: boolean;
  /** Another browser: whether the password was given, and whether it matches the chosen one. */
  passwordGiven: boolean;
  passwordMatches: boolean;
  replaced: boolean;
  /** The account the completed sign-up opens. */
  accountId: string;
  /**
   * The passkey registration sent with the code (decision 0037): none sent, or how the handler's
   * check of it against the sign-up's challenge went (it is verified before the decider rules,
   * so its failure is answered only once the code is known to be right).
   */
  passkey?: 'none' | 'verified' | 'failed' | 'exists';
}

/** A resent code SMTP refused: withdrawn, the code before it (`restored`) back (decision 0034, addendum of 2026-11-29). */
export interface WithdrawSignupCode {
  type: 'WithdrawSignupCode';
  codeHash: string;
  restored: SignupCode | null;
}

export type SignupCommand = StartSignup | ResendSignupCode | TrySignupCode | WithdrawSignupCode;

export interface SignupContext {
  now: Date;
}


/** A 429 refusal; `retry_after` (seconds) becomes the Retry-After header (AccountWrites), none when null. */
const retryLater = (code: 'too_many_attempts' | 'too_many_emails', message: string, seconds: number | null) => new DomainRefusal(code, message, null, seconds === null ? {} : { retry_after: seconds });

/** The sign-up still open at `now`, else 409 verification_expired (also what POST /accounts/passkey-options asks). */
export function openSignup(state: SignupState, replaced: boolean, now: Date): { signup: SignupRecord; code: SignupCode } {
  return open(state, replaced, now);
}

/** 400 signup_browser_required: a passkey sign-up has no password to prove the person in another browser. */
export const signupBrowserRequired = () => new DomainRefusal('signup_browser_required', 'A passkey sign-up must be finished in the browser that started it.');

function open(state: SignupState, replaced: boolean, now: Date): { signup: SignupRecord; code: SignupCode } {
  const { signup, code } = state;
  if (signup === null || code === null || state.completedBy !== null || replaced || now.getTime() >= Date.parse(signup.expiresAt)) {
    throw new DomainRefusal('verification_expired', 'This sign-up is finished, replaced by a newer one, or older than a day: sign up again.');
  }
  return { signup, code };
}

export const signupDecider: Decider<SignupCommand, SignupEvent, SignupState, SignupContext> = {
  initialState: { signup: null, code: null, codesSent: 0, completedBy: null },
  decide: (command, state, context) =>
    decideBy<SignupCommand, SignupState, SignupContext, SignupEvent>(
      {
        StartSignup(c, s) {
          if (repeatedCreation('sign-up', s.signup?.id ?? null, c.signup.signup_id)) return [];
          return [
            { type: 'SignupStarted', data: c.signup },
            { type: 'SignupCodeSent', data: c.code },
          ];
        },
        ResendSignupCode(c, s, ctx) {
          const { code } = open(s, c.replaced, ctx.now);
          const resend = emailedCodeResend({ codesSent: s.codesSent, lastSentAtMs: Date.parse(code.sentAt) }, ctx.now.getTime());
          if (!resend.send) {
            const message = resend.retryAfterSec === null ? `At most ${EMAILED_CODE_RULES.codesPerFlow} codes are sent per sign-up: sign up again.` : 'A new code can be sent a minute after the last.';
            throw retryLater('too_many_emails', message, resend.retryAfterSec);
          }
          return [{ type: 'SignupCodeSent', data: c.code }];
        },
        WithdrawSignupCode(c, s) {
          if (s.code?.hash !== c.codeHash) return []; // replaced or gone meanwhile: nothing of it to withdraw
          const r = c.restored;
          return [{ type: 'SignupCodeWithdrawn', data: { code_hash: c.codeHash, restored: r && { code_hash: r.hash, sent_at: r.sentAt, expires_at: r.expiresAt, wrong_tries: r.wrongTries } } }];
        },
        TrySignupCode(c, s, ctx) {
          const { signup, code } = open(s, c.replaced, ctx.now);
          const attempt = emailedCodeAttempt({ sentAtMs: Date.parse(code.sentAt), wrongTries: code.wrongTries }, ctx.now.getTime());
          if (!attempt.check && attempt.refused === 'too_many_attempts') {
            // the dead code's refusal ends when it expires (then code_expired) or the sign-up does (verification_expired)
            const untilSignupEnds = Math.max(1, Math.ceil((Date.parse(signup.expiresAt) - ctx.now.getTime()) / 1000));
            throw retryLater('too_many_attempts', `${EMAILED_CODE_RULES.wrongTriesPerCode} wrong codes: this code no longer works; ask for a new code.`, Math.min(attempt.retryAfterSec, untilSignupEnds));
          }
          const passkey = c.passkey ?? 'none';
          const passwordless = signup.passwordHash === null;
          if (passwordless && !c.sameBrowser) throw signupBrowserRequired();
          if (!c.sameBrowser && !c.passwordGiven) throw new DomainRefusal('password_required', 'Finishing the sign-up in another browser needs the password you chose.', 'password');
          if (passwordless && c.passwordGiven) throw new DomainRefusal('invalid_request', 'This sign-up has no password: it is finished with a passkey (credential).', 'password');
          if (passwordless && passkey === 'none') throw new DomainRefusal('invalid_request', 'A passkey sign-up is finished with the passkey’s registration (credential) from POST /accounts/passkey-options.', 'credential');
          if (!passwordless && passkey !== 'none') throw new DomainRefusal('invalid_request', 'This sign-up has a password: add passkeys once signed in (POST /me/passkeys).', 'credential');
          if (!attempt.check) throw new DomainRefusal('code_expired', 'This code is older than 15 minutes: ask for a new one.', 'code');
          if (!c.codeMatches || c.checkedHash !== code.hash) return [{ type: 'SignupCodeRejected', data: { signup_id: signup.id } }];
          if (passkey === 'failed') throw new DomainRefusal('passkey_failed', 'The passkey could not be verified: ask for new options (POST /accounts/passkey-options) and try again.', 'credential');
          if (passkey === 'exists') throw new DomainRefusal('passkey_exists', 'This passkey is already on an account.', 'credential');
          if (!c.sameBrowser && !c.passwordMatches) throw new DomainRefusal('invalid_credentials', 'The password does not match the one chosen at sign-up.', 'password');
          return [{ type: 'SignupCompleted', data: { signup_id: signup.id, account_id: c.accountId } }];
        },
      },
      command,
      state,
      context,
    ),
  evolve(state, event) {
    switch (event.type) {
      case 'SignupStarted': {
        const d = event.data;
        return { ...state, signup: { id: d.signup_id, email: d.email, passwordHash: d.password_hash, accountId: d.account_id ?? null, businessName: d.business_name, simulated: d.simulated, referralCode: d.referral_code ?? null, browserHash: d.browser_hash, expiresAt: d.expires_at } };
      }
      case 'SignupCodeSent':
        return { ...state, code: { hash: event.data.code_hash, sentAt: event.data.sent_at, expiresAt: event.data.expires_at, wrongTries: 0 }, codesSent: state.codesSent + 1 };
      case 'SignupCodeWithdrawn': {
        if (state.code?.hash !== event.data.code_hash) return state;
        const r = event.data.restored;
        return { ...state, code: r && { hash: r.code_hash, sentAt: r.sent_at, expiresAt: r.expires_at, wrongTries: r.wrong_tries }, codesSent: Math.max(0, state.codesSent - 1) };
      }
      case 'SignupCodeRejected':
        return state.code === null ? state : { ...state, code: { ...state.code, wrongTries: state.code.wrongTries + 1 } };
      case 'SignupCompleted':
        return { ...state, completedBy: event.data.account_id };
      default:
        return ignoreUnknown(event, state);
    }
  },
  fromStored: asSignupEvent,
};
