import { eventOf, type EventUnion } from '@lib/eventstore';
import { ACCOUNT_STREAM, TWO_FACTOR_CHALLENGE_STREAM } from '../stream-categories';

/**
 * The stored events of two-step sign-in (decision 0036). Type names and snake_case data are the
 * stored format: add optional fields, never rename or remove. No event holds a TOTP secret, a
 * code, a recovery code or a challenge id: the secret is sealed under the KEK outside the log
 * (`account_totp_secrets`, named by its setup id), recovery codes and challenge ids are SHA-256
 * hashes (80 and 192 random bits: no dictionary reverses them).
 */

// ---------------------------------------------------------------- account-<acc_id> (beside the account's own events)

export type TwoFactorEvent = EventUnion<{
  /** A setup began in a session: its secret is sealed under `setup_id`; enabling must follow in that session before `expires_at`. */
  TwoFactorSetupStarted: { setup_id: string; session_id: string; expires_at: string };
  /** Two-step sign-in is on with the setup's secret; `time_step` is the TOTP step of the code that enabled it (not usable again). */
  TwoFactorEnabled: { setup_id: string; recovery_code_hashes: string[]; time_step: number; enabled_at: string };
  /** A code passed a check (sign-in): a TOTP step (later codes must be of a later step) or a recovery code (used up). */
  TwoFactorCodeAccepted: { time_step: number | null; recovery_code_hash: string | null };
  /** Off: by its person (no `reason`, a code proved), or `email_change_undone` (decision 0038, addendum of 2026-11-28: an undone e-mail change turns it off). */
  TwoFactorDisabled: { setup_id: string; reason?: 'email_change_undone' };
}>;

export const TWO_FACTOR_EVENT_TYPES = ['TwoFactorSetupStarted', 'TwoFactorEnabled', 'TwoFactorCodeAccepted', 'TwoFactorDisabled'] as const;

export function asTwoFactorEvent(event: { stream?: string; type: string; data: unknown }): TwoFactorEvent | null {
  return eventOf<TwoFactorEvent>(ACCOUNT_STREAM, TWO_FACTOR_EVENT_TYPES, event);
}

// ---------------------------------------------------------------- two_factor_challenge-<sha256 of the challenge id>

export type TwoFactorChallengeEvent = EventUnion<{
  /**
   * `credentials_version`: the person's credentials version (twoFactorDecider) when the password
   * passed; the code must find it unchanged (addendum of 2026-11-29). Absent on challenges
   * started before it was recorded: those are no longer answered.
   */
  TwoFactorChallengeStarted: { account_id: string; expires_at: string; credentials_version?: number };
  TwoFactorChallengeUsed: { account_id: string };
}>;

export const TWO_FACTOR_CHALLENGE_EVENT_TYPES = ['TwoFactorChallengeStarted', 'TwoFactorChallengeUsed'] as const;

export function asTwoFactorChallengeEvent(event: { stream?: string; type: string; data: unknown }): TwoFactorChallengeEvent | null {
  return eventOf<TwoFactorChallengeEvent>(TWO_FACTOR_CHALLENGE_STREAM, TWO_FACTOR_CHALLENGE_EVENT_TYPES, event);
}
