import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, ValidateBy, ValidationOptions } from 'class-validator';
import { KEY_KINDS, KEY_MODES, KeyKind, KeyMode } from '../../api-keys';
import { DomainError } from '../../domain-error';
import { ACCESS_LEVELS, Permissions, RESOURCES, normalizePermissions, parsePermissions } from '../../permissions';
import { OptionalText } from '../text';

export const KEY_NAME_MAX = 100;

/** What the API's documents say of `permissions` (decision 0039). */
export const PERMISSIONS_DESCRIPTION = `Restricted keys only: resource to access (read, or write which implies read), e.g. {"payments": "write", "customers": "read"}, or the written form "payments:write,customers:read". Resources: ${RESOURCES.join(', ')}. A resource left out is not accessible.`;

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
  @ApiProperty({ description: 'secret (every permission), restricted (only its permissions) or publishable (public routes only; no name, no permissions).', enum: KEY_KINDS })
  type!: KeyKind;

  @IsIn(KEY_MODES, { message: `A key's mode is live or test` })
  @ApiProperty({ description: 'live or test (a simulated business has test keys only).', enum: KEY_MODES })
  mode!: KeyMode;

  @OptionalText('name', KEY_NAME_MAX)
  @ApiPropertyOptional({ description: 'A name to tell keys apart (not for publishable keys).', maxLength: KEY_NAME_MAX, nullable: true })
  name?: string | null;

  /** Restricted keys only: grants, or their written form `payments:write,webhooks:read`. */
  @IsOptional()
  @IsPermissions()
  @ApiPropertyOptional({ description: PERMISSIONS_DESCRIPTION, oneOf: [{ type: 'object', additionalProperties: { type: 'string', enum: [...ACCESS_LEVELS] } }, { type: 'string' }], nullable: true })
  permissions?: Permissions | string | null;
}
