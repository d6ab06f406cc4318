import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, ValidateIf } from 'class-validator';

/** Longest code accepted as input (a 6-digit code or a recovery code, with spaces or dashes); longer is 400 invalid_request. */
export const SECOND_FACTOR_MAX = 40;
export const CHALLENGE_ID_MAX = 100;

/**
 * An optional code (documented with `description`): left out is fine, null or a non-string is
 * not (400 invalid_request). Its form is the use case's to judge (400 invalid_code).
 */
export function OptionalCode(field: string, description: string): PropertyDecorator {
  return applyDecorators(
    MaxLength(SECOND_FACTOR_MAX, { message: `${field} is at most ${SECOND_FACTOR_MAX} characters` }),
    IsString({ message: `${field} must be a string` }),
    ValidateIf((_o: object, value: unknown) => value !== undefined),
    ApiProperty({ required: false, description, maxLength: SECOND_FACTOR_MAX }),
  );
}
