/**
 * The limits of spec §8 "Per person, address or code limits" as pure rules (decision 0033).
 * Durations in seconds.
 */

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Failed passwords in a row from which the password stops working until a reset. */
export const PASSWORD_DISABLED_AFTER = 100;

/**
 * The failed-password ladder: the lock that the `failures`-th failure in a row starts, or null.
 * 5 → 1 minute, 10 → 5 minutes, 15 → 15 minutes, 20 and every 5 after → 1 hour. Used for the
 * failures per e-mail, per browser that signed in before, and wrong current passwords per session.
 */
export function passwordLockSec(failures: number): number | null {
  if (!Number.isInteger(failures) || failures < 5 || failures % 5 !== 0) return null;
  if (failures === 5) return MINUTE;
  if (failures === 10) return 5 * MINUTE;
  if (failures === 15) return 15 * MINUTE;
  return HOUR;
}

/** True once the e-mail's failures in a row reach PASSWORD_DISABLED_AFTER (403 password_reset_required). */
export function passwordDisabled(failures: number): boolean {
  return failures >= PASSWORD_DISABLED_AFTER;
}

/** Wrong two-step codes (across all challenges of a person) that lock codes; and for how long. */
export const TWO_STEP_CODE_FAILURES = 5;
export const TWO_STEP_LOCK_SEC = 15 * MINUTE;

/** Every TWO_STEP_CODE_FAILURES-th wrong code in a row locks codes for 15 minutes. */
export function twoStepLockSec(wrongCodes: number): number | null {
  return Number.isInteger(wrongCodes) && wrongCodes > 0 && wrongCodes % TWO_STEP_CODE_FAILURES === 0 ? TWO_STEP_LOCK_SEC : null;
}

/** A fixed-window budget: `limit` per `windowSec`. */
export interface Budget {
  name: string;
  limit: number;
  windowSec: number;
}

/** What an e-mail is, for the per-address budgets. */
export type EmailKind = 'code' | 'password_reset' | 'notice';

/** E-mails per address: 5 an hour and 20 a day, of every kind. */
export const EMAILS_PER_ADDRESS: readonly Budget[] = Object.freeze([
  { name: 'mail-hour', limit: 5, windowSec: HOUR },
  { name: 'mail-day', limit: 20, windowSec: DAY },
]);
/** At most 3 reset links an hour (on top of the above). */
export const RESET_LINKS_PER_ADDRESS: Budget = Object.freeze({ name: 'mail-reset-hour', limit: 3, windowSec: HOUR });

/** The budgets one e-mail of `kind` spends. */
export function emailBudgets(kind: EmailKind): readonly Budget[] {
  return kind === 'password_reset' ? [...EMAILS_PER_ADDRESS, RESET_LINKS_PER_ADDRESS] : EMAILS_PER_ADDRESS;
}

/** Sign-up codes per address: 10 wrong codes a day. */
export const SIGNUP_CODE_FAILURES: Budget = Object.freeze({ name: 'signup-code-day', limit: 10, windowSec: DAY });
/** E-mail changes per person: 3 started per hour. */
export const EMAIL_CHANGES_PER_PERSON: Budget = Object.freeze({ name: 'email-change-hour', limit: 3, windowSec: HOUR });
/** New alert e-mails per person: 3 started per hour across all businesses. */
export const ALERT_EMAILS_PER_PERSON: Budget = Object.freeze({ name: 'alert-email-hour', limit: 3, windowSec: HOUR });

/** How long counters without a window are kept after their last failure (decision 0033). */
export const BROWSER_COUNT_KEEP_SEC = 30 * DAY;
export const SESSION_COUNT_KEEP_SEC = 30 * DAY;
export const TWO_STEP_COUNT_KEEP_SEC = DAY;
/** A browser that signed in is remembered this long after its last successful sign-in. */
export const KNOWN_BROWSER_KEEP_SEC = 180 * DAY;

/** `Retry-After` in whole seconds, at least 1 (as the per-IP limiter answers it). */
export function retryAfterSec(untilMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}
