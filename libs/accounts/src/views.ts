import { CODE_RESEND_AFTER_MS, SignupState } from './signup.decider';
import type { AccountRole } from './events';

/** A person as GET /me shows them: their address and the businesses they act for, with their role. */
export interface AccountView {
  kind: 'account';
  id: string;
  email: string;
  businesses: { id: string; name: string; role: AccountRole }[];
  created_at: string;
}

/** A session as GET /sessions lists it (never its token). */
export interface SessionView {
  kind: 'session';
  id: string;
  /** The session of the request that asked. */
  current: boolean;
  method: 'sign_up' | 'password' | 'passkey';
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  /** When it ends if not used before (idle), or at the latest (absolute), whichever comes first. */
  expires_at: string;
}

/** A pending sign-up as POST /accounts and the resend answer it. */
export interface SignupView {
  kind: 'signup';
  id: string;
  email: string;
  /** The sign-up must be verified before this (a day). */
  expires_at: string;
  /** The code last sent is valid until this (15 minutes). */
  code_expires_at: string;
  /** A new code can be asked for from this time. */
  resend_after: string;
}

/** A sign-up's state as the API shows it (after a write to it: it has its record and a code). */
export function signupView(state: SignupState): SignupView {
  const { signup, code } = state;
  if (signup === null || code === null) throw new Error('signupView: a sign-up without its record or code');
  return {
    kind: 'signup',
    id: signup.id,
    email: signup.email,
    expires_at: signup.expiresAt,
    code_expires_at: code.expiresAt,
    resend_after: new Date(Date.parse(code.sentAt) + CODE_RESEND_AFTER_MS).toISOString(),
  };
}
