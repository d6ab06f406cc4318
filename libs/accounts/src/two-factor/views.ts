import type { TwoFactorState } from './two-factor.decider';

/** The person's two-step sign-in as GET /me/two-factor shows it (decision 0036). */
export interface TwoFactorView {
  kind: 'two_factor';
  enabled: boolean;
  enabled_at: string | null;
  /** Recovery codes not used yet (0 when off). */
  recovery_codes_remaining: number;
}

/** The answer of turning it on: the recovery codes, shown this once (only their hashes are kept). */
export interface TwoFactorEnabledView extends TwoFactorView {
  recovery_codes: string[];
}

/** A setup begun (POST /me/two-factor/setup): what the authenticator app needs, valid 10 minutes. */
export interface TwoFactorSetupView {
  kind: 'two_factor_setup';
  /** The Base32 secret, for typing into an app that cannot scan. */
  secret: string;
  otpauth_uri: string;
  /** The QR code of `otpauth_uri`, an SVG data URI. */
  qr_code: string;
  expires_at: string;
}

/** What POST /sessions answers a person with two-step sign-in on: no session yet, a challenge to answer with a code. */
export interface TwoFactorChallengeView {
  kind: 'two_factor_challenge';
  id: string;
  expires_at: string;
}

export function twoFactorView(state: TwoFactorState): TwoFactorView {
  const on = state.enabled;
  if (on === null) return { kind: 'two_factor', enabled: false, enabled_at: null, recovery_codes_remaining: 0 };
  return { kind: 'two_factor', enabled: true, enabled_at: on.enabledAt, recovery_codes_remaining: on.recoveryCodeHashes.length - on.usedRecoveryCodeHashes.length };
}
