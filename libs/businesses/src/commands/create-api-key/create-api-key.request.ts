import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional } from 'class-validator';
import { CheckedBy, PlainText } from '@lib/http';
import { KEY_KINDS, KEY_MODES, KeyKind, KeyMode } from '../../api-keys';
import { ACCESS_LEVELS, RESOURCES } from '../../permissions';
import { OptionalText } from '../text';
import { KEY_NAME_MAX } from './create-api-key.dto';

/** What the API's documents say of a restricted key's `permissions` (decision 0039). */
export const PERMISSIONS_RULE = {
  description: `Restricted keys only: resource to access (read, or write which implies read), e.g. {"payments": "write", "customers": "read"}; a resource left out is not accessible. Resources: ${RESOURCES.join(', ')}.`,
  additionalProperties: { type: 'string', enum: [...ACCESS_LEVELS] },
};

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

  @PlainText('single-line')
  @OptionalText('name', KEY_NAME_MAX)
  @ApiPropertyOptional({ description: 'A name to tell keys apart (not for publishable keys).', nullable: true })
  name?: string | null;

  @IsOptional()
  @IsObject({ message: 'permissions must be an object of resource to access (read or write)' })
  @CheckedBy('permissions.ts (normalizePermissions) and the business decider', PERMISSIONS_RULE)
  permissions?: Record<string, string> | null;
}
