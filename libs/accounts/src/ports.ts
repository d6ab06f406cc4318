/**
 * What the accounts capability needs from the rest of the service, as small ports (decision
 * 0034). AccountsModule binds each to its implementation (libs/mail, libs/passwords,
 * libs/limits) through adapters in ./adapters; tests may bind their own. The bot challenge is
 * libs/challenge's @RequiresChallenge on the routes.
 */

/** Wall time (tests inject their own: the failed-password ladder and code expiry run on it). */
export const ACCOUNTS_CLOCK = Symbol('ACCOUNTS_CLOCK');
export type AccountsClock = () => Date;

/** E-mails a person receives. Throws a DomainRefusal email_unavailable (libs/mail's MailUnavailableError) when the deployment cannot send: 503. */
export const ACCOUNT_MAIL = Symbol('ACCOUNT_MAIL');
export interface AccountMail {
  sendSignupCode(to: string, code: string): Promise<void>;
}

/** Password hashing (argon2id) and the new-password policy (400 weak_password says which rule broke). */
export const ACCOUNT_PASSWORDS = Symbol('ACCOUNT_PASSWORDS');
export interface AccountPasswords {
  hash(secret: string): Promise<string>;
  verify(hash: string, secret: string): Promise<boolean>;
  /** Throws a 400 weak_password refusal (field `field`) when the new password breaks a rule. */
  assertStrong(password: string, field: string, context: { email?: string }): Promise<void>;
}

/**
 * Who a failed password counts against: an e-mail address (sign-in; `browser` is the SHA-256 of
 * the browser's long-lived device cookie: a browser that signed in to that address before keeps
 * its own count, which never disables the password), or a session (wrong current passwords).
 */
export type PasswordSubject = { kind: 'email'; email: string; browser: string | null } | { kind: 'session'; sessionId: string };

/**
 * An answer being verified (a password, a two-step code), holding one of the slots its count has
 * left before the next lock (decision 0033, addendum of 2026-11-28: concurrent guesses can never
 * outrun the ladder). End it once: `failed` (wrong: counted) or `succeeded` (right: the count
 * cleared); `release` frees the slot without counting and does nothing once ended — put it in a
 * `finally` for attempts that end otherwise.
 */
export interface LimitedAttempt {
  failed(): Promise<void>;
  succeeded(): Promise<void>;
  release(): Promise<void>;
}

export type PasswordGate = { state: 'open'; attempt: LimitedAttempt } | { state: 'locked'; retryAfterSec: number } | { state: 'disabled' };

/** The failed-password ladder of spec §8 (5 → 1 min, 10 → 5 min, 15 → 15 min, 20 and every 5 after → 1 h; 100 → disabled). */
export const PASSWORD_FAILURES = Symbol('PASSWORD_FAILURES');
export interface PasswordFailures {
  /**
   * Before verifying a password: refused while locked (also when every slot left before the next
   * lock stayed in flight for a few seconds: 429, Retry-After 1) or disabled; otherwise the
   * attempt to end once verified.
   */
  reserve(subject: PasswordSubject): Promise<PasswordGate>;
  /** The count is cleared (a new password set by a reset). */
  clear(subject: PasswordSubject): Promise<void>;
  /** A completed sign-in from this browser: from now on it has its own count for the address. */
  signedIn(email: string, browser: string): Promise<void>;
}

/** What a limit answers before an attempt: allowed, or refused with the seconds to wait (429 with Retry-After). */
export type Allowance = { allowed: true } | { allowed: false; retryAfterSec: number };

/** The e-mails-per-address budget (5 an hour, 20 a day): false when spent (then send nothing). */
export const EMAIL_BUDGET = Symbol('EMAIL_BUDGET');
export interface EmailBudget {
  take(address: string): Promise<Allowance>;
  /** Gives back a take whose e-mail was never sent (the request refused after a lost race, or SMTP down): a refusal claims nothing. */
  giveBack(address: string): Promise<void>;
  /** Seconds until a take would be allowed (0: now), taking nothing: what a refusal for another reason adds to its wait (audit lim F2). */
  waitSec(address: string): Promise<number>;
}

/** Wrong sign-up codes per address (10 a day): `blocked` answers 429 too_many_attempts before a code is checked. */
export const SIGNUP_CODE_LIMIT = Symbol('SIGNUP_CODE_LIMIT');
export interface SignupCodeLimit {
  check(address: string): Promise<Allowance>;
  fail(address: string): Promise<void>;
}
