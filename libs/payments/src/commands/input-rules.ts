import { ValidateBy, ValidateIf, ValidationOptions } from 'class-validator';

/**
 * class-validator rules the payments requests share (decision 0014: the shape of input —
 * types, enums, formats, lengths — is declared on each use case's request class; rules that need
 * state stay in the handler or the decider). A message is written without its final period: the
 * API's validation pipe adds it and reports 400 invalid_request with `field` = the property.
 */

/**
 * The field may be left out, but not sent as null: unlike @IsOptional, which lets null through
 * to the handler as if it were a value, null goes on to the type check and is refused there
 * (400 invalid_request naming the field).
 */
export function OmittableNotNull(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

/** ISO 8601 with a time and a zone (`2026-01-31T12:00:00Z`, `…+01:00`), that names a real instant. */
export const ISO_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d)$/;

export function isIsoTimestamp(value: unknown): value is string {
  return typeof value === 'string' && ISO_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value));
}

export function IsIsoTimestamp(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isIsoTimestamp', validator: { validate: isIsoTimestamp } }, options);
}

/** The longest success_url / cancel_url (decision 0011). */
export const URL_MAX = 2048;

/** An absolute http(s) URL of at most 2048 characters (success_url, cancel_url; decision 0011). */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > URL_MAX) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export function IsHttpUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isHttpUrl', validator: { validate: isHttpUrl } }, options);
}
