import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, ValidateBy, ValidateIf, ValidationArguments, ValidationOptions } from 'class-validator';
import { PAYMENT_AMOUNT_MAJOR, minorBounds } from '@lib/money';
import { PAYMENT_CURRENCIES } from '../app/simulated-chain';
import { METADATA_MAX_KEYS, METADATA_MAX_KEY_LENGTH, METADATA_MAX_VALUE_LENGTH, RESERVED_METADATA_KEYS } from '../domain/metadata';

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

/**
 * A field that may be left out, else one of `values` (refused with `message`), documented with
 * `description`: what the stack `@OmittableNotNull() @IsIn(values, { message }) @IsString()
 * @ApiPropertyOptional({ description })` says, in one decorator.
 */
export function OmittableChoice(values: readonly string[], message: string | ((args: ValidationArguments) => string), description: string): PropertyDecorator {
  // listed in the order a stack applies them (bottom up): the order of the validation messages
  return applyDecorators(ApiPropertyOptional({ description }), IsString(), IsIn(values, { message }), OmittableNotNull());
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

/**
 * An absolute http(s) URL of at most 2048 characters, which may be left out or null (success_url,
 * cancel_url): a string first, then its length, then its form, as stacked decorators would run.
 */
export function NullableHttpUrl(): PropertyDecorator {
  return (target, property) => {
    const message = `${String(property)} must be an absolute http(s) URL of at most ${URL_MAX} characters`;
    const rules = [IsString(), MaxLength(URL_MAX, { message }), IsHttpUrl({ message }), IsOptional(), ValidateIf((_: object, v: unknown) => v !== null)];
    for (const rule of rules) rule(target, property);
  };
}

// ------------------------------------------------------------------ rules the use cases check
// What a handler or decider checks about a field (it needs a table, the business's clock, or a
// `field` such as `metadata.<key>`), described for the API document with @CheckedBy (libs/http)
// from the constants the checks use.

/** `expires_at` is in the future and at most this many days after the business's clock (decision 0011). */
export const PAYMENT_EXPIRY_MAX_DAYS = 90;

/** A payment's `amount` in minor units: the same bounds for every currency POST /payments takes (all have two decimals). */
export function paymentAmountRule(): Record<string, unknown> {
  const bounds = PAYMENT_CURRENCIES.map((currency) => minorBounds(currency, PAYMENT_AMOUNT_MAJOR));
  const [{ min, max }] = bounds;
  if (bounds.some((b) => b.min !== min || b.max !== max)) throw new Error('payment amount bounds differ by currency: describe them per currency');
  return { minimum: min, maximum: max, description: `Whole minor units of \`currency\` (cents): ${min} to ${max}, that is 1.00 to 1,000,000.00.` };
}

const METADATA_WORDS = `String keys to string values: at most ${METADATA_MAX_KEYS} keys; a key is 1 to ${METADATA_MAX_KEY_LENGTH} letters, digits, "_", "." or "-", not a reserved name (${RESERVED_METADATA_KEYS.join(', ')}, or starting with "service."); a value is at most ${METADATA_MAX_VALUE_LENGTH} characters. A refused key or value is named in \`field\` as \`metadata.<key>\`.`;

/** `metadata` on create (domain/metadata.ts checks it): an empty value is dropped. */
export const METADATA_RULE = {
  type: 'object',
  maxProperties: METADATA_MAX_KEYS,
  additionalProperties: { type: 'string', maxLength: METADATA_MAX_VALUE_LENGTH },
  description: `${METADATA_WORDS} An empty value is dropped.`,
};

/** `metadata` on PATCH: merged by key; a key set to "" or null is removed; null clears all. */
export const METADATA_PATCH_RULE = {
  type: 'object',
  maxProperties: METADATA_MAX_KEYS,
  additionalProperties: { type: 'string', maxLength: METADATA_MAX_VALUE_LENGTH, nullable: true },
  description: `${METADATA_WORDS} Merged by key into the payment's metadata: a key set to "" or null is removed, \`metadata\` null removes every key. The result may hold at most ${METADATA_MAX_KEYS} keys.`,
};

/** The longest e-mail address (RFC 5321's path limit, as `isValidEmail` holds it). */
export const EMAIL_MAX_LENGTH = 254;

/**
 * An address's length, refused like any other invalid address: 400 invalid_email (spec §7: an
 * invalid `customer_email` on a payment or `email` on a checkout), not the pipe's invalid_request.
 * The rule stays on the DTO, so the API document states the limit (`maxLength`).
 */
export function EmailLength(field: string): PropertyDecorator {
  return MaxLength(EMAIL_MAX_LENGTH, { message: `${field} is not a valid e-mail address (at most ${EMAIL_MAX_LENGTH} characters)`, context: { code: 'invalid_email' } });
}

/** An e-mail address (refused with 400 invalid_email, not invalid_request). */
export const EMAIL_RULE = { format: 'email', description: 'An e-mail address (surrounding whitespace is trimmed, as every address the API takes); an invalid one is refused with `invalid_email`.' };
