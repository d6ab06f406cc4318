import { PaymentDomainError } from './errors';

/** Spec §8 "Other limits": metadata keys, their length and alphabet, and value length. */
export const METADATA_MAX_KEYS = 20;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_VALUE_LENGTH = 500;
const KEY = /^[A-Za-z0-9_.-]+$/;

/** A value's length in characters (Unicode code points, as JSON Schema's maxLength counts them), not UTF-16 units: an emoji is one. */
export function metadataValueLength(value: string): number {
  return [...value].length;
}

/**
 * Reserved metadata key names (the spec leaves the list "not shown"; decision 0011): names our own
 * objects use for identity and mode, so a search or a webhook consumer can never confuse a
 * business's metadata with ours, and anything under the `service.` prefix, kept for the service.
 */
export const RESERVED_METADATA_KEYS: readonly string[] = ['id', 'kind', 'object', 'mode', 'livemode', 'business_id', 'payment_id', 'checkout_id', 'customer_id', 'link_id'];
const RESERVED_PREFIX = 'service.';

function refuse(message: string, field: string): never {
  throw new PaymentDomainError('invalid_request', message, field);
}

function checkKey(key: string): void {
  const field = `metadata.${key}`;
  if (key.length === 0) refuse('Metadata keys cannot be empty.', 'metadata');
  if (key.length > METADATA_MAX_KEY_LENGTH) refuse(`Metadata keys are at most ${METADATA_MAX_KEY_LENGTH} characters.`, field);
  if (!KEY.test(key)) refuse('Metadata keys use letters, digits, "_", "." and "-" only.', field);
  if (RESERVED_METADATA_KEYS.includes(key.toLowerCase()) || key.toLowerCase().startsWith(RESERVED_PREFIX)) refuse(`"${key}" is a reserved metadata key.`, field);
}

function checkValue(key: string, value: unknown, allowRemoval: boolean): void {
  const field = `metadata.${key}`;
  if (value === null && allowRemoval) return;
  if (typeof value !== 'string') refuse('Metadata values are strings.', field);
  if (metadataValueLength(value) > METADATA_MAX_VALUE_LENGTH) refuse(`Metadata values are at most ${METADATA_MAX_VALUE_LENGTH} characters.`, field);
}

function checkCount(metadata: Record<string, unknown>): void {
  if (Object.keys(metadata).length > METADATA_MAX_KEYS) refuse(`Metadata has at most ${METADATA_MAX_KEYS} keys.`, 'metadata');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Metadata on create: an object of string values within the limits; empty values are dropped (as a PATCH would remove them). */
export function checkMetadata(input: unknown): Record<string, string> {
  if (input === undefined || input === null) return {};
  if (!isPlainObject(input)) refuse('metadata must be an object of string values.', 'metadata');
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    checkKey(key);
    checkValue(key, value, false);
    if (value !== '') out[key] = value as string;
  }
  checkCount(input);
  return out;
}

/** Checks a PATCH's metadata (object with string or null values, or null). */
export function checkMetadataPatch(input: unknown): Record<string, string | null> | null {
  if (input === null) return null;
  if (!isPlainObject(input)) refuse('metadata must be an object or null.', 'metadata');
  for (const [key, value] of Object.entries(input)) {
    checkKey(key);
    checkValue(key, value, true);
  }
  return input as Record<string, string | null>;
}

/** Spec §4 PATCH /payments/{id}: merge by key; a key set to '' or null is removed; null clears all. */
export function mergeMetadata(before: Readonly<Record<string, string>>, patch: Record<string, string | null> | null): Record<string, string> {
  if (patch === null) return {};
  checkMetadataPatch(patch);
  const out: Record<string, string> = { ...before };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === '') delete out[key];
    else out[key] = value;
  }
  checkCount(out);
  return out;
}
