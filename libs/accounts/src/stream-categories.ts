import { StreamCategory, streamCategory } from '@lib/eventstore';

/**
 * The accounts capability's streams (decision 0034), declared once: names are built and parsed
 * only through these. A category's name is part of the stored format: never rename it.
 *
 * - `account-<acc_id>`: one person: opened, the businesses they act for and their roles, their
 *   sessions (started, ended), password changes (account.decider.ts);
 * - `account_email-<sha256 hex of the lower-cased address>`: who holds an e-mail address and the
 *   sign-up now pending for it (email_taken, a replaced sign-up; account-email.decider.ts);
 * - `signup-<sgn_id>`: one sign-up: its e-mailed codes, wrong tries, completion (signup.decider.ts).
 *
 * `account-` is no prefix of `account_email-` (the next character differs).
 */
export const ACCOUNT_ID_PATTERN = /acc_[0-9A-Za-z]{1,64}/;
export const SESSION_ID_PATTERN = /ses_[0-9A-Za-z]{1,64}/;
export const SIGNUP_ID_PATTERN = /sgn_[0-9A-Za-z]{1,64}/;

export const ACCOUNT_STREAM: StreamCategory = streamCategory('account', ACCOUNT_ID_PATTERN);
export const ACCOUNT_EMAIL_STREAM: StreamCategory = streamCategory('account_email', /[0-9a-f]{64}/);
export const SIGNUP_STREAM: StreamCategory = streamCategory('signup', SIGNUP_ID_PATTERN);
/** `two_factor_challenge-<sha256 hex of the challenge id>`: one two-step sign-in challenge (decision 0036). */
export const TWO_FACTOR_CHALLENGE_STREAM: StreamCategory = streamCategory('two_factor_challenge', /[0-9a-f]{64}/);

/** Every category this capability writes (libs/wiring ALL_STREAM_CATEGORIES). */
export const ACCOUNT_STREAM_CATEGORIES: readonly StreamCategory[] = [ACCOUNT_STREAM, ACCOUNT_EMAIL_STREAM, SIGNUP_STREAM, TWO_FACTOR_CHALLENGE_STREAM];

const anchored = (pattern: RegExp) => new RegExp(`^${pattern.source}$`);
const ACCOUNT_ID = anchored(ACCOUNT_ID_PATTERN);
const SESSION_ID = anchored(SESSION_ID_PATTERN);
const SIGNUP_ID = anchored(SIGNUP_ID_PATTERN);

export const isAccountId = (id: string): boolean => ACCOUNT_ID.test(id);
export const isSessionId = (id: string): boolean => SESSION_ID.test(id);
export const isSignupId = (id: string): boolean => SIGNUP_ID.test(id);
