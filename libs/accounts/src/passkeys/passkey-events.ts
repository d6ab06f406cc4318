import { eventOf, type EventUnion } from '@lib/eventstore';
import { ACCOUNT_STREAM } from '../stream-categories';

/**
 * The passkey and step-up events on a person's stream (`account-<acc_id>`; decision 0037).
 * Stored format: add optional fields, never rename or remove. A passkey's public key is public
 * (COSE, base64url); nothing here is a secret.
 */

export interface PasskeyAddedData {
  passkey_id: string;
  /** The WebAuthn credential id (base64url), as the authenticator made it. */
  credential_id: string;
  /** The credential's COSE public key, base64url. */
  public_key: string;
  /** The signature counter at registration. */
  counter: number;
  transports: string[];
  name: string;
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
}

/**
 * Why a passkey went: absent, its person removed it (DELETE /me/passkeys/{id});
 * `email_change_undone`, an undone e-mail change took away every way in (decision 0038,
 * addendum of 2026-11-28).
 */
export type PasskeyRemovedReason = 'email_change_undone';

/** How a session proved its person again (spec §5.6). */
export type StepUpMethod = 'password' | 'passkey';

export type PasskeyEvent = EventUnion<{
  PasskeyAdded: PasskeyAddedData;
  PasskeyRemoved: { passkey_id: string; reason?: PasskeyRemovedReason };
  PasskeyUsed: { passkey_id: string; counter: number; at: string };
  SessionSteppedUp: { session_id: string; method: StepUpMethod; passkey_id: string | null; at: string };
}>;

export const PASSKEY_EVENT_TYPES = ['PasskeyAdded', 'PasskeyRemoved', 'PasskeyUsed', 'SessionSteppedUp'] as const;

/** The events of the person's stream the passkey decider folds: its own, and those of decision 0034 it needs. */
export type PersonEventForPasskeys =
  | PasskeyEvent
  | EventUnion<{
      AccountOpened: { account_id: string; password_hash: string | null };
      AccountPasswordChanged: { password_hash: string };
      SessionStarted: { session_id: string };
      SessionEnded: { session_id: string };
    }>;

const FOLDED = [...PASSKEY_EVENT_TYPES, 'AccountOpened', 'AccountPasswordChanged', 'SessionStarted', 'SessionEnded'];

export function asPasskeyEvent(event: { stream?: string; type: string; data: unknown }): PasskeyEvent | null {
  return eventOf<PasskeyEvent>(ACCOUNT_STREAM, PASSKEY_EVENT_TYPES, event);
}

export function asPersonEventForPasskeys(event: { stream?: string; type: string; data: unknown }): PersonEventForPasskeys | null {
  return eventOf<PersonEventForPasskeys>(ACCOUNT_STREAM, FOLDED, event);
}
