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

/**
 * The input of "create an API key" (operator CLI, admin endpoint): its shape, in one place.
 * Which kind may have a name or permissions is the decider's rule.
 */
export class CreateApiKeyDto {
  @IsIn(KEY_KINDS, { message: `A key's type is one of ${KEY_KINDS.join(', ')}` })
  type!: KeyKind;

  @IsIn(KEY_MODES, { message: `A key's mode is live or test` })
  mode!: KeyMode;

  @PlainText('single-line')
  @OptionalText('name', KEY_NAME_MAX)
  name?: string | null;

  /** Restricted keys only: grants, or their written form `payments:write,webhooks:read`. */
  @IsOptional()
  @IsPermissions()
  permissions?: Permissions | string | null;
}
