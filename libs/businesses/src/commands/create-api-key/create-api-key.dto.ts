import { applyDecorators } from '@nestjs/common';
import { IsIn, IsOptional, ValidateBy, ValidationOptions } from 'class-validator';
import { KEY_KINDS, KEY_MODES, KeyKind, KeyMode } from '../../api-keys';
import { DomainError } from '../../domain-error';
import { Permissions, normalizePermissions, parsePermissions } from '../../permissions';
import { OptionalText } from '../text';
import { PlainText } from '@lib/http';

export const KEY_NAME_MAX = 100;

/** Why a permissions value is refused (parsePermissions / normalizePermissions say), or null. */
function permissionsProblem(value: unknown): string | null {
  try {
    if (typeof value === 'string') parsePermissions(value);
    else normalizePermissions(value);
    return null;
  } catch (error) {
    if (error instanceof DomainError) return error.message.replace(/\.$/, '');
    throw error;
  }
}

/** Grants as `payments:write,webhooks:read` or as an object of resource to access (permissions.ts). */
export function IsPermissions(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPermissions',
      validator: {
        validate: (value: unknown) => permissionsProblem(value) === null,
        defaultMessage: (args) => permissionsProblem(args?.value) ?? 'permissions are invalid',
      },
    },
    options,
  );
}

/** A key's optional name (one line, at most KEY_NAME_MAX characters; blank is null), as creating and changing a key take it. */
export function KeyName(): PropertyDecorator {
  // in the order the stack `@PlainText('single-line') @OptionalText(…)` applies them (bottom up)
  return applyDecorators(OptionalText('name', KEY_NAME_MAX), PlainText('single-line'));
}

/** A key's optional grants (IsPermissions), as creating and changing a key take them. */
export function KeyPermissions(): PropertyDecorator {
  // in the order the stack `@IsOptional() @IsPermissions()` applies them (bottom up)
  return applyDecorators(IsPermissions(), IsOptional());
}

/**
 * The input of "create an API key" (operator CLI, admin endpoint): its shape, in one place.
 * Which kind may have a name or permissions is the decider's rule.
 */
export class CreateApiKeyDto {
  @IsIn(KEY_KINDS, { message: `A key's type is one of ${KEY_KINDS.join(', ')}` })
  type!: KeyKind;

  @IsIn(KEY_MODES, { message: `A key's mode is live or test` })
  mode!: KeyMode;

  @KeyName()
  name?: string | null;

  /** Restricted keys only: grants, or their written form `payments:write,webhooks:read`. */
  @KeyPermissions()
  permissions?: Permissions | string | null;
}
