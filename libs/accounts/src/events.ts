import { eventOf, type EventUnion } from '@lib/eventstore';
import { ACCOUNT_EMAIL_STREAM, ACCOUNT_STREAM, SIGNUP_STREAM } from './stream-categories';

/**
 * The stored events of the accounts capability (decision 0034). Type names and snake_case data
 * are the stored format: add optional fields, never rename or remove. No event holds a password,
 * an e-mailed code or a session token: only their hashes (argon2id for passwords and codes,
 * SHA-256 for the 256-bit session and browser tokens).
 */

/** What a person may do for a business. Only `owner` is granted today (the first business's creator). */
export type AccountRole = 'owner';
export const ACCOUNT_ROLES: readonly AccountRole[] = ['owner'];

// ---------------------------------------------------------------- account-<acc_id>

export interface AccountOpenedData {
  account_id: string;
  email: string;
  /** argon2id of the password; null for a person who signed up with a passkey (decision 0037). */
  password_hash: string | null;
  signup_id: string | null;
}

export interface SessionStartedData {
  session_id: string;
  /** SHA-256 (hex) of the session cookie's token. */
  token_hash: string;
  /** SHA-256 (hex) of the browser's long-lived device cookie (the "browser that signed in before" rule). */
  device_hash: string;
  /** How the session was started. */
  method: 'sign_up' | 'password' | 'passkey';
  user_agent: string | null;
  /** When it ends whatever happens (absolute lifetime). */
  expires_at: string;
}

export type SessionEndReason = 'signed_out' | 'revoked' | 'password_changed' | 'password_reset' | 'email_change_undone';

export type AccountEvent = EventUnion<{
  AccountOpened: AccountOpenedData;
  AccountBusinessJoined: { account_id: string; business_id: string; role: AccountRole };
  SessionStarted: SessionStartedData;
  SessionEnded: { session_id: string; reason: SessionEndReason };
  AccountPasswordChanged: { account_id: string; password_hash: string };
}>;

export const ACCOUNT_EVENT_TYPES = ['AccountOpened', 'AccountBusinessJoined', 'SessionStarted', 'SessionEnded', 'AccountPasswordChanged'] as const;

export function asAccountEvent(event: { stream?: string; type: string; data: unknown }): AccountEvent | null {
  return eventOf<AccountEvent>(ACCOUNT_STREAM, ACCOUNT_EVENT_TYPES, event);
}

// ---------------------------------------------------------------- account_email-<fingerprint>

export type AccountEmailEvent = EventUnion<{
  AccountEmailSignupStarted: { email: string; signup_id: string };
  AccountEmailClaimed: { email: string; account_id: string };
  /** The holder let the address go: an e-mail change moved it to another address, or its undo moved it back (decision 0038). */
  AccountEmailReleased: { email: string; account_id: string };
}>;

export const ACCOUNT_EMAIL_EVENT_TYPES = ['AccountEmailSignupStarted', 'AccountEmailClaimed', 'AccountEmailReleased'] as const;

export function asAccountEmailEvent(event: { stream?: string; type: string; data: unknown }): AccountEmailEvent | null {
  return eventOf<AccountEmailEvent>(ACCOUNT_EMAIL_STREAM, ACCOUNT_EMAIL_EVENT_TYPES, event);
}

// ---------------------------------------------------------------- signup-<sgn_id>

export interface SignupStartedData {
  signup_id: string;
  email: string;
  /** argon2id of the chosen password: the account's once verified; null for a passkey sign-up (decision 0037). */
  password_hash: string | null;
  /**
   * A passkey sign-up's account id, chosen at the start: the WebAuthn user handle of the passkey
   * registered at verify names the account before it exists (absent on password sign-ups, whose
   * account id is made at verify).
   */
  account_id?: string;
  business_name: string;
  simulated: boolean;
  /** The referral code given at sign-up, folded (decision 0035): the first business's referrer. Absent when none was given. */
  referral_code?: string;
  /** SHA-256 (hex) of the sign-up cookie's token: the browser that started it. */
  browser_hash: string;
  /** The sign-up ends a day after it started (verification_expired). */
  expires_at: string;
}

export interface SignupCodeSentData {
  /** argon2id of the 6-digit code. */
  code_hash: string;
  sent_at: string;
  /** 15 minutes after sent_at (code_expired). */
  expires_at: string;
  /** False when the address's e-mail budget was spent: the code exists but no e-mail went out. */
  delivered: boolean;
}

/**
 * A resent code withdrawn by its own request because SMTP refused to send it (that request
 * answered 503 email_unavailable; decision 0034, addendum of 2026-11-29): the code before it
 * (`restored`) works again, with its tries, and the resend counts no more.
 */
export interface SignupCodeWithdrawnData {
  code_hash: string;
  restored: { code_hash: string; sent_at: string; expires_at: string; wrong_tries: number } | null;
}

export type SignupEvent = EventUnion<{
  SignupStarted: SignupStartedData;
  SignupCodeSent: SignupCodeSentData;
  SignupCodeWithdrawn: SignupCodeWithdrawnData;
  SignupCodeRejected: { signup_id: string };
  SignupCompleted: { signup_id: string; account_id: string };
}>;

export const SIGNUP_EVENT_TYPES = ['SignupStarted', 'SignupCodeSent', 'SignupCodeWithdrawn', 'SignupCodeRejected', 'SignupCompleted'] as const;

export function asSignupEvent(event: { stream?: string; type: string; data: unknown }): SignupEvent | null {
  return eventOf<SignupEvent>(SIGNUP_STREAM, SIGNUP_EVENT_TYPES, event);
}
