import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, ValidateBy, ValidateIf } from 'class-validator';
import { PlainText, TextLines, Trimmed } from '@lib/http';
import { isValidEmail } from '@lib/payments';

export const CUSTOMER_NAME_MAX = 200;
export const CUSTOMER_NOTE_MAX = 1000;
export const CUSTOMER_EMAIL_MAX = 254;

/**
 * A customer's e-mail: the address payments take as `customer_email` (the same rule, so every
 * address a payment names can be a customer's), trimmed; else 400 invalid_request on `email`
 * (§7: routes other than payments and checkouts refuse an address with invalid_request).
 * `description` is the field's in the OpenAPI document.
 */
export function CustomerEmail(required: boolean, description: string): PropertyDecorator {
  return applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({ description, maxLength: CUSTOMER_EMAIL_MAX }),
    ValidateBy({ name: 'isCustomerEmail', validator: { validate: (value: unknown) => isValidEmail(value), defaultMessage: () => 'email must be a valid e-mail address' } }),
    MaxLength(CUSTOMER_EMAIL_MAX, { message: `email is at most ${CUSTOMER_EMAIL_MAX} characters` }),
    IsString({ message: 'email must be a string' }), // left out: the validation pipe says "email is required"
    ...(required ? [] : [ValidateIf((_o: object, value: unknown) => value !== undefined)]),
    Trimmed(),
  );
}

/**
 * An optional text (`name` may be null: none), trimmed, at most `max` characters, plain text of
 * one line or several (libs/http PlainText); `description` is the field's in the OpenAPI document.
 */
export function CustomerText(field: string, max: number, nullable: boolean, lines: TextLines, description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional(nullable ? { description, nullable: true, maxLength: max } : { description, maxLength: max }),
    PlainText(lines),
    MaxLength(max, { message: `${field} is at most ${max} characters` }),
    IsString({ message: nullable ? `${field} must be a string or null` : `${field} must be a string` }),
    nullable ? IsOptional() : ValidateIf((_o: object, value: unknown) => value !== undefined),
    Trimmed(),
  );
}
