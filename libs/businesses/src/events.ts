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

export type BusinessEvent =
  | { type: 'BusinessCreated'; data: BusinessCreatedData }
  | { type: 'ApiKeyCreated'; data: ApiKeyCreatedData }
  | { type: 'ApiKeyRevoked'; data: ApiKeyRevokedData }
  | { type: 'ApiKeyUpdated'; data: ApiKeyUpdatedData }
  | { type: 'ApiKeyRolled'; data: ApiKeyRolledData }
  | { type: 'BusinessSuspended'; data: BusinessSuspendedData }
  | { type: 'BusinessReinstated'; data: BusinessReinstatedData }
  | { type: 'CheckoutSettingsChanged'; data: CheckoutSettingsChangedData };

export type BusinessEventType = BusinessEvent['type'];

export const BUSINESS_EVENT_TYPES: readonly BusinessEventType[] = ['BusinessCreated', 'ApiKeyCreated', 'ApiKeyRevoked', 'BusinessSuspended', 'BusinessReinstated', 'CheckoutSettingsChanged', 'ApiKeyUpdated', 'ApiKeyRolled'];

/**
 * An event read from the log as a business event, or null when it is not one (another
 * stream's, or a type this version does not know: readers skip those).
 */
export function asBusinessEvent(event: { stream?: string; type: string; data: unknown }): BusinessEvent | null {
  if (event.stream !== undefined && !BUSINESS_STREAM.owns(event.stream)) return null;
  if (!(BUSINESS_EVENT_TYPES as readonly string[]).includes(event.type)) return null;
  return { type: event.type, data: event.data } as BusinessEvent;
}
