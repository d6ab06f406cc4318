import { eventOf, type EventUnion } from '@lib/eventstore';
import type { KeyKind, KeyMode } from './api-keys';
import type { CheckoutSettings } from './checkout-settings';
import type { Permissions } from './permissions';
import { BUSINESS_STREAM } from './stream-categories';

/**
 * The stored events of a business stream (`business-<biz_id>`). Their type names and data
 * (snake_case) are the stored format: add optional fields if needed, never rename or remove.
 * Times are not in the data: the log's recordedAt is the time of each event (except
 * BusinessSuspended's `suspended_at`, the time of the decision, which the business object shows).
 */
export interface BusinessCreatedData {
  business_id: string;
  name: string;
  simulated: boolean;
  website: string | null;
  support_email: string | null;
  /** The business's own referral code, claimed on its stream before (absent on businesses created before referrals). */
  referral_code?: string | null;
  /** The business that referred this one, by the code given at creation (absent or null: none). */
  referred_by?: { business_id: string; code: string } | null;
}

export interface ApiKeyCreatedData {
  key_id: string;
  business_id: string;
  kind: KeyKind;
  mode: KeyMode;
  /** sha256 (hex) of the whole key; the key itself is never stored. */
  secret_hash: string;
  /** `sk_live_`, `pk_test_`, … */
  prefix: string;
  last4: string;
  name: string | null;
  /** A restricted key's grants; null for secret (everything) and publishable (nothing) keys. */
  permissions: Permissions | null;
}

export interface ApiKeyRevokedData {
  key_id: string;
}

/**
 * A key's name or grants changed (PATCH /api-keys/{id}; decision 0039): only the fields that
 * changed are present, each with its new value.
 */
export interface ApiKeyUpdatedData {
  key_id: string;
  name?: string | null;
  /** A restricted key's new grants (replacing the old ones whole). */
  permissions?: Permissions;
}

/**
 * A key got a new secret (POST /api-keys/{id}/roll; decision 0039): the old one stops working at
 * once. Only the new secret's hash and last 4 characters; the prefix stays the key's.
 */
export interface ApiKeyRolledData {
  key_id: string;
  /** sha256 (hex) of the new whole key. */
  secret_hash: string;
  last4: string;
}

/** An operator suspended the business (the operator is the event's metadata actor). */
export interface BusinessSuspendedData {
  business_id: string;
  /** ISO 8601: the time of the decision, what the business object shows as `suspended_at`. */
  suspended_at: string;
  /** The operator's reason, free text (1–500 characters); never shown to the business. */
  reason: string;
}

/** An operator lifted the business's suspension. */
export interface BusinessReinstatedData {
  business_id: string;
}

/** The business changed its checkout settings (decision 0028): the whole settings after the change. */
export interface CheckoutSettingsChangedData extends CheckoutSettings {
  business_id: string;
}

/**
 * The business changed its own settings (PATCH /businesses/{id}): only the fields that changed,
 * each with its new value.
 */
export interface BusinessSettingsChangedData {
  business_id: string;
  name?: string;
  website?: string | null;
  support_email?: string | null;
  email_alerts?: boolean;
  product_updates?: boolean;
}

/**
 * A code was e-mailed to a new alert address, which waits as `pending_alert_email` (decision
 * 0035). The code itself is never stored: its scrypt hash with a random salt.
 */
export interface AlertEmailCodeSentData {
  business_id: string;
  email: string;
  code_salt: string;
  code_hash: string;
  /** ISO 8601: when this code was sent (valid 15 minutes from then). */
  sent_at: string;
  /** ISO 8601: when this address was first entered (pending 24 hours from then). */
  pending_since: string;
}

/**
 * The code of an AlertEmailCodeSent withdrawn by its own request because SMTP refused to send it
 * (that request answered 503 email_unavailable; decision 0035, addendum of 2026-11-29): the
 * alert e-mail goes back to what was pending before it (`restored`, null: nothing pending).
 */
export interface AlertEmailCodeWithdrawnData {
  business_id: string;
  /** The withdrawn code's hash (which AlertEmailCodeSent it undoes). */
  code_hash: string;
  restored: {
    email: string;
    code_salt: string;
    code_hash: string;
    sent_at: string;
    pending_since: string;
    codes_sent: number;
    wrong_tries: number;
  } | null;
}

/** A wrong code was tried for the pending alert address (5 → 429 too_many_attempts until a new code). */
export interface AlertEmailCodeRejectedData {
  business_id: string;
}

/** The pending alert address was confirmed: alerts go there from now on. */
export interface AlertEmailConfirmedData {
  business_id: string;
  email: string;
}

/** The business chose another referral code (claimed on its stream before; the previous one released after). */
export interface ReferralCodeChangedData {
  business_id: string;
  code: string;
  previous: string | null;
}

export type BusinessEvent = EventUnion<{
  BusinessCreated: BusinessCreatedData;
  ApiKeyCreated: ApiKeyCreatedData;
  ApiKeyRevoked: ApiKeyRevokedData;
  ApiKeyUpdated: ApiKeyUpdatedData;
  ApiKeyRolled: ApiKeyRolledData;
  BusinessSuspended: BusinessSuspendedData;
  BusinessReinstated: BusinessReinstatedData;
  CheckoutSettingsChanged: CheckoutSettingsChangedData;
  BusinessSettingsChanged: BusinessSettingsChangedData;
  AlertEmailCodeSent: AlertEmailCodeSentData;
  AlertEmailCodeRejected: AlertEmailCodeRejectedData;
  AlertEmailCodeWithdrawn: AlertEmailCodeWithdrawnData;
  AlertEmailConfirmed: AlertEmailConfirmedData;
  ReferralCodeChanged: ReferralCodeChangedData;
}>;

export type BusinessEventType = BusinessEvent['type'];

export const BUSINESS_EVENT_TYPES: readonly BusinessEventType[] = [
  'BusinessCreated',
  'ApiKeyCreated',
  'ApiKeyRevoked',
  'BusinessSuspended',
  'BusinessReinstated',
  'CheckoutSettingsChanged',
  'BusinessSettingsChanged',
  'AlertEmailCodeSent',
  'AlertEmailCodeRejected',
  'AlertEmailCodeWithdrawn',
  'AlertEmailConfirmed',
  'ReferralCodeChanged',
  'ApiKeyUpdated',
  'ApiKeyRolled',
];

/**
 * An event read from the log as a business event, or null when it is not one (another
 * stream's, or a type this version does not know: readers skip those).
 */
export function asBusinessEvent(event: { stream?: string; type: string; data: unknown }): BusinessEvent | null {
  return eventOf<BusinessEvent>(BUSINESS_STREAM, BUSINESS_EVENT_TYPES, event);
}
