import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsString, MaxLength, ValidateBy } from 'class-validator';
import { PASSWORD_MAX_LENGTH, PASSWORD_RULE_MESSAGES, isOverLong } from '@lib/passwords';
import { isValidEmail } from '@lib/payments';
import { OptionalReferralCode, REFERRAL_CODE_MAX, REFERRAL_CODE_MIN, REFERRAL_CODE_PATTERN } from '@lib/businesses';
import { Omittable, PlainText, Trimmed } from '@lib/http';

/** Limits of the account inputs (decision 0034). */
export const ACCOUNT_EMAIL_MAX = 254;
export const PASSWORD_MAX = PASSWORD_MAX_LENGTH; // libs/passwords' policy (its length rule counts code points)
export const BUSINESS_NAME_MAX = 200;

/** A person's e-mail address (the rule payments use for an address), trimmed; else 400 invalid_request on `email`. */
export function AccountEmail(): PropertyDecorator {
  return applyDecorators(
    ValidateBy({ name: 'isAccountEmail', validator: { validate: (value: unknown) => isValidEmail(value), defaultMessage: () => 'email must be a valid e-mail address' } }),
    MaxLength(ACCOUNT_EMAIL_MAX, { message: `email is at most ${ACCOUNT_EMAIL_MAX} characters` }),
    IsString({ message: 'email is required' }),
    Trimmed(),
  );
}

/**
 * The address a person signs in with (POST /sessions): any string (an address today's rule would
 * refuse still answers 400 invalid_credentials, as an unknown one does), trimmed, but never empty
 * or blank → 400 invalid_request on `email` "email is required", as sign-up, resets and e-mail
 * changes answer (audit 2026-11-30 F1, decision 0034 addendum: the failed-password ladder has no
 * key for an empty address, and threw).
 */
export function SignInEmail(): PropertyDecorator {
  return applyDecorators(
    MaxLength(ACCOUNT_EMAIL_MAX, { message: `email is at most ${ACCOUNT_EMAIL_MAX} characters` }),
    IsNotEmpty({ message: 'email is required' }),
    IsString({ message: 'email is required' }),
    Trimmed(),
  );
}

/** A password as typed (never trimmed): a non-empty string of at most PASSWORD_MAX characters. */
export function Password(field: string, required: boolean): PropertyDecorator {
  return applyDecorators(
    MaxLength(PASSWORD_MAX, { message: `${field} is at most ${PASSWORD_MAX} characters` }),
    IsNotEmpty({ message: `${field} is required` }),
    IsString({ message: `${field} ${required ? 'is required' : 'must be a string'}` }),
    ...(required ? [] : [Omittable()]),
  );
}

/**
 * A new password (sign-up, /me/password, /password-resets/confirm): a non-empty string; longer
 * than the length rule allows (PASSWORD_MAX code points after NFKC) → 400 **weak_password** on
 * `field` with the length rule's message (spec §7: a password breaking the length rule is
 * weak_password; decision 0033, addendum of 2026-11-29) — judged here, before anything is
 * hashed; the 1 MiB body limit bounds what is normalised. The other rules (and the lower bound)
 * are the use case's policy check.
 */
export function NewPassword(field: string, required: boolean): PropertyDecorator {
  return applyDecorators(
    ValidateBy(
      {
        name: 'passwordMaxLength',
        constraints: [PASSWORD_MAX],
        validator: { validate: (value: unknown) => typeof value !== 'string' || !isOverLong(value), defaultMessage: () => PASSWORD_RULE_MESSAGES.length.replace(/\.$/, '') },
      },
      { context: { code: 'weak_password' } },
    ),
    IsNotEmpty({ message: `${field} is required` }),
    IsString({ message: `${field} ${required ? 'is required' : 'must be a string'}` }),
    ...(required ? [] : [Omittable()]),
  );
}

/** `current_password`: the person's password now, checked by the use case (400 invalid_credentials when wrong). */
export function CurrentPassword(): PropertyDecorator {
  return applyDecorators(Password('current_password', true), ApiProperty({ description: 'The password now (400 invalid_credentials when wrong).', maxLength: PASSWORD_MAX }));
}

/**
 * `current_password` where a person who has no password (a passkey sign-up, decision 0037) may
 * leave it out and prove themselves by a step-up instead (POST /me/password, POST /me/email;
 * decision 0037, addendum of 2026-11-29): optional in the schema, required by the use case of
 * everyone who has a password (400 invalid_request "current_password is required.").
 */
export function CurrentPasswordUnlessNone(): PropertyDecorator {
  return applyDecorators(
    Password('current_password', false),
    ApiPropertyOptional({
      description: 'The password now (400 invalid_credentials when wrong). Required when the account has a password; an account without one (a passkey sign-up) leaves it out and needs a step-up instead (403 step_up_required).',
      maxLength: PASSWORD_MAX,
    }),
  );
}

/** A required name, trimmed, one line of plain text. */
export function RequiredName(field: string, max: number): PropertyDecorator {
  return applyDecorators(PlainText('single-line'), MaxLength(max, { message: `${field} is at most ${max} characters` }), IsNotEmpty({ message: `${field} is required` }), IsString({ message: `${field} is required` }), Trimmed());
}

export function OptionalFlag(field: string): PropertyDecorator {
  return applyDecorators(IsBoolean({ message: `${field} must be true or false` }), Omittable());
}

/*
 * The fields of a business a person opens (sign-up's first business, POST /businesses): each
 * field's rule with its schema, so both bodies hold the same; `description` says what the field
 * means in that body.
 */

/** The business's name (`field`: `business_name` at sign-up, `name` for POST /businesses). */
export function NewBusinessName(field: string, description: string): PropertyDecorator {
  return applyDecorators(ApiProperty({ description, maxLength: BUSINESS_NAME_MAX }), RequiredName(field, BUSINESS_NAME_MAX));
}

/** `simulated`: a simulated business (left out: false). */
export function NewBusinessSimulated(description: string): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ description }), OptionalFlag('simulated'));
}

/** `referral_code`: libs/businesses' rule (OptionalReferralCode), documented with the codes' shape. */
export function NewBusinessReferralCode(description: string): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ description, minLength: REFERRAL_CODE_MIN, maxLength: REFERRAL_CODE_MAX, pattern: REFERRAL_CODE_PATTERN }), OptionalReferralCode());
}

/** An id or code given as a string (its form is the use case's to judge: a wrong one has its own code). */
export function RequiredString(field: string, max: number): PropertyDecorator {
  return applyDecorators(MaxLength(max, { message: `${field} is at most ${max} characters` }), IsString({ message: `${field} is required` }));
}

/** The request's browser, as the account use cases need it (never logged). */
export interface BrowserContext {
  ip: string;
  userAgent: string | null;
  /** The sign-up cookie's token, when the browser sent one. */
  signupToken: string | null;
  /** The long-lived device cookie's token, when the browser sent one. */
  deviceToken: string | null;
}

/** A started session and the cookies that carry it: the tokens are in the answer and nowhere else. */
export interface StartedSession<T> {
  answer: T;
  sessionToken: string;
  deviceToken: string;
}
