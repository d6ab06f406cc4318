import { applyDecorators } from '@nestjs/common';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { Trimmed, TrimmedOrNull } from '@lib/http';

/** The API's trims (libs/http text-input.ts), as this library's DTOs name them. */
export { Trimmed, TrimmedOrNull };

/**
 * An optional text of at most `max` characters, `field` naming it in the messages: trimmed, blank
 * is null, null or left out is none, anything but a string is refused. What the stack
 * `@TrimmedOrNull() @IsOptional() @IsString(…) @MaxLength(…)` says, in one decorator.
 */
export function OptionalText(field: string, max: number): PropertyDecorator {
  // listed in the order a stack applies them (bottom up): the order of the validation messages
  return applyDecorators(
    MaxLength(max, { message: `${field} is at most ${max} characters` }),
    IsString({ message: `${field} must be a string or null` }),
    IsOptional(),
    TrimmedOrNull(),
  );
}

/**
 * A required text of at most `max` characters, `field` naming it in the messages: trimmed, and
 * blank, null, left out or not a string is "`field` is required". What the stack
 * `@Trimmed() @IsString(…) @IsNotEmpty(…) @MaxLength(…)` says, in one decorator.
 */
export function RequiredText(field: string, max: number): PropertyDecorator {
  // listed in the order a stack applies them (bottom up): the order of the validation messages
  return applyDecorators(
    MaxLength(max, { message: `${field} is at most ${max} characters` }),
    IsNotEmpty({ message: `${field} is required` }),
    IsString({ message: `${field} is required` }),
    Trimmed(),
  );
}
