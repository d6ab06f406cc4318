import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional } from 'class-validator';
import { CheckedBy } from '@lib/http';
import { KEY_KINDS, KEY_MODES, KeyKind, KeyMode } from '../../api-keys';
import { ACCESS_LEVELS, RESOURCES } from '../../permissions';
import { KeyName } from './create-api-key.dto';

/** What the API's documents say of a restricted key's `permissions` (decision 0039). */
export const PERMISSIONS_RULE = {
  description: `Restricted keys only: resource to access (read, or write which implies read), e.g. {"payments": "write", "customers": "read"}; a resource left out is not accessible. Resources: ${RESOURCES.join(', ')}.`,
  additionalProperties: { type: 'string', enum: [...ACCESS_LEVELS] },
};

/** A key's `name` in an HTTP body: KeyName, documented with `description`. */
export function KeyNameProperty(description: string): PropertyDecorator {
  // in the order the stack `@KeyName() @ApiPropertyOptional(…)` applies them (bottom up)
  return applyDecorators(ApiPropertyOptional({ description, nullable: true }), KeyName());
}

/** A key's `permissions` in an HTTP body: an object (or null), documented as `rule` says. */
export function PermissionsProperty(rule: typeof PERMISSIONS_RULE): PropertyDecorator {
  // in the order the stack `@IsOptional() @IsObject(…) @CheckedBy(…)` applies them (bottom up)
  return applyDecorators(
    CheckedBy('permissions.ts (normalizePermissions) and the business decider', rule),
    IsObject({ message: 'permissions must be an object of resource to access (read or write)' }),
    IsOptional(),
  );
}

/**
 * POST /api-keys (decision 0039): the HTTP body of "create an API key", as the document shows it.
 * The use case checks it again against CreateApiKeyDto (the CLI's input, which also takes the
 * written form `payments:write`); the grants' resources and access are normalizePermissions'.
 */
export class CreateApiKeyRequest {
  @IsIn(KEY_KINDS, { message: `A key's type is one of ${KEY_KINDS.join(', ')}` })
  @ApiProperty({ description: 'secret (every permission), restricted (only its permissions) or publishable (public routes only; no name, no permissions).', enum: KEY_KINDS })
  type!: KeyKind;

  @IsIn(KEY_MODES, { message: `A key's mode is live or test` })
  @ApiProperty({ description: 'live or test (a simulated business has test keys only).', enum: KEY_MODES })
  mode!: KeyMode;

  @KeyNameProperty('A name to tell keys apart (not for publishable keys).')
  name?: string | null;

  @PermissionsProperty(PERMISSIONS_RULE)
  permissions?: Record<string, string> | null;
}
