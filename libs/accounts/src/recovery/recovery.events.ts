import { eventOf, type EventUnion } from '@lib/eventstore';
import { ACCOUNT_EVENT_TYPES, AccountEvent, asAccountEvent } from '../events';
import { PASSKEY_EVENT_TYPES, PasskeyEvent, asPasskeyEvent } from '../passkeys/passkey-events';
import { ACCOUNT_STREAM } from '../stream-categories';
import { TWO_FACTOR_EVENT_TYPES, TwoFactorEvent, asTwoFactorEvent } from '../two-factor/events';

/**
 * The events of password resets and e-mail changes (decision 0038), on the person's stream
 * `account-<acc_id>` beside those of decision 0034. Stored format: add optional fields, never
 * rename or remove. No event holds a token or a code: tokens (256 random bits) as SHA-256, the
 * 6-digit code as argon2id.
 */

export interface PasswordResetRequestedData {
  reset_id: string;
  /** SHA-256 (hex) of the e-mailed link's token. */
  token_hash: string;
  requested_at: string;
  /** The link works until this (an hour). */
  expires_at: string;
}

export interface EmailChangeStartedData {
  change_id: string;
  new_email: string;
  /** argon2id of the 6-digit code e-mailed to the new address. */
  code_hash: string;
  sent_at: string;
  /** The code works until this (15 minutes). */
  code_expires_at: string;
  /** The change must be confirmed before this (a day). */
  expires_at: string;
  /** False when the new address's e-mail budget was spent: no e-mail went out. */
  delivered: boolean;
}

export interface AccountEmailChangedData {
  change_id: string;
  old_email: string;
  new_email: string;
  /** SHA-256 (hex) of the undo link's token, e-mailed to the old address. */
  undo_token_hash: string;
  undo_expires_at: string;
}

/**
 * A reset link withdrawn by its own request because SMTP refused to send it (decision 0038,
 * addendum of 2026-11-29): the link before it (`restored`) works again and the request counts
 * no more among the 3 an hour.
 */
export interface PasswordResetWithdrawnData {
  reset_id: string;
  requested_at: string;
  restored: { reset_id: string; token_hash: string; expires_at: string } | null;
}

/**
 * An e-mail change withdrawn by its own request because SMTP refused to send its code (that
 * request answered 503 email_unavailable; decision 0038, addendum of 2026-11-29): the change
 * pending before it (`restored`) is pending again and it counts no more among the 3 an hour.
 */
export interface EmailChangeWithdrawnData {
  change_id: string;
  sent_at: string;
  restored: { change_id: string; new_email: string; code_hash: string; code_expires_at: string; expires_at: string; wrong_tries: number } | null;
}

export type RecoveryEvent = EventUnion<{
  PasswordResetRequested: PasswordResetRequestedData;
  PasswordResetWithdrawn: PasswordResetWithdrawnData;
  EmailChangeWithdrawn: EmailChangeWithdrawnData;
  PasswordResetCompleted: { reset_id: string };
  EmailChangeStarted: EmailChangeStartedData;
  EmailChangeCodeRejected: { change_id: string };
  AccountEmailChanged: AccountEmailChangedData;
  EmailChangeUndone: { change_id: string; email: string; from_email: string };
  /** The password stops working until a reset, which is held until `hold_until` (an undone e-mail change). */
  PasswordResetRequired: { reason: 'email_change_undone'; hold_until: string };
}>;

export const RECOVERY_EVENT_TYPES = [
  'PasswordResetRequested',
  'PasswordResetWithdrawn',
  'EmailChangeWithdrawn',
  'PasswordResetCompleted',
  'EmailChangeStarted',
  'EmailChangeCodeRejected',
  'AccountEmailChanged',
  'EmailChangeUndone',
  'PasswordResetRequired',
] as const;

/**
 * What the recovery decider reads of the person's stream: its own events, those of decision 0034,
 * and the passkeys' (0037) and two-step sign-in's (0036) — an undone e-mail change removes the
 * person's passkeys and turns two-step sign-in off in the same decision (addendum of 2026-11-28).
 */
export type AccountStreamEvent = AccountEvent | RecoveryEvent | PasskeyEvent | TwoFactorEvent;

export function asRecoveryEvent(event: { stream?: string; type: string; data: unknown }): RecoveryEvent | null {
  return eventOf<RecoveryEvent>(ACCOUNT_STREAM, RECOVERY_EVENT_TYPES, event);
}

export function asAccountStreamEvent(event: { stream?: string; type: string; data: unknown }): AccountStreamEvent | null {
  if ((ACCOUNT_EVENT_TYPES as readonly string[]).includes(event.type)) return asAccountEvent(event);
  if ((PASSKEY_EVENT_TYPES as readonly string[]).includes(event.type)) return asPasskeyEvent(event);
  if ((TWO_FACTOR_EVENT_TYPES as readonly string[]).includes(event.type)) return asTwoFactorEvent(event);
  return asRecoveryEvent(event);
}
