import { test as isCommonPassword } from 'fxa-common-password-list';
import { normalizePassword } from './hashing';

/** Length bounds in Unicode code points (decision 0033), counted after NFKC normalisation. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;
/** A password made of one unit of at most this many code points repeated is refused. */
export const PASSWORD_MAX_REPEATED_UNIT = 4;
/** The e-mail's local part is looked for only from this length (shorter parts match too much). */
export const EMAIL_LOCAL_PART_MIN_LENGTH = 4;

/** Which rule a new password broke; the `weak_password` message names it. */
export type PasswordRule = 'length' | 'repetition' | 'no_letters' | 'too_common' | 'contains_email' | 'breached';

export type PasswordCheck = { ok: true } | { ok: false; rule: PasswordRule; message: string };

export const PASSWORD_RULE_MESSAGES: Readonly<Record<PasswordRule, string>> = Object.freeze({
  length: `Password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long.`,
  repetition: 'Password must not be one character or a short pattern repeated.',
  no_letters: 'Password must contain at least one letter.',
  too_common: 'Password is too common; choose one that is harder to guess.',
  contains_email: 'Password must not contain your e-mail address.',
  breached: 'Password has appeared in a data breach; choose another one.',
});

const refuse = (rule: PasswordRule): PasswordCheck => ({ ok: false, rule, message: PASSWORD_RULE_MESSAGES[rule] });

/** True when the whole password is one unit of 1..PASSWORD_MAX_REPEATED_UNIT code points repeated. */
export function isRepetition(codePoints: readonly string[]): boolean {
  const n = codePoints.length;
  for (let unit = 1; unit <= PASSWORD_MAX_REPEATED_UNIT && unit * 2 <= n; unit++) {
    let repeated = true;
    for (let i = unit; i < n && repeated; i++) repeated = codePoints[i] === codePoints[i % unit];
    if (repeated) return true;
  }
  return false;
}

/**
 * Whether a new password breaks the length rule's upper bound (more than PASSWORD_MAX_LENGTH code
 * points after NFKC): the one rule judged while the request is validated (decision 0033, addendum
 * of 2026-11-29), so an over-long password is `weak_password` like a short one and is never hashed.
 */
export function isOverLong(password: string): boolean {
  return [...normalizePassword(password)].length > PASSWORD_MAX_LENGTH;
}

/**
 * The local rules, in order: length, repetition, no letters, too common, contains the e-mail's
 * local part (when an e-mail is given). Pure; the breach check is the port's (PasswordPolicy).
 */
export function checkPasswordRules(password: string, context: { email?: string | null } = {}): PasswordCheck {
  const normalized = normalizePassword(password);
  const codePoints = [...normalized];
  if (codePoints.length < PASSWORD_MIN_LENGTH || codePoints.length > PASSWORD_MAX_LENGTH) return refuse('length');
  if (isRepetition(codePoints)) return refuse('repetition');
  if (!/\p{L}/u.test(normalized)) return refuse('no_letters');
  const lower = normalized.toLowerCase();
  if (isCommonPassword(lower) || isCommonPassword(normalized)) return refuse('too_common');
  const local = context.email?.split('@')[0]?.normalize('NFKC').toLowerCase() ?? '';
  if ([...local].length >= EMAIL_LOCAL_PART_MIN_LENGTH && lower.includes(local)) return refuse('contains_email');
  return { ok: true };
}
