import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { Permissions } from '../../permissions';
import { OptionalText } from '../text';
import { IsPermissions, KEY_NAME_MAX, PERMISSIONS_DESCRIPTION } from '../create-api-key/create-api-key.dto';

/**
 * The input of "change an API key" (PATCH /api-keys/{id}): send only what changes. `name` null or
 * blank clears it; `permissions` (restricted keys only) replaces the grants whole.
 */
export class UpdateApiKeyDto {
  @OptionalText('name', KEY_NAME_MAX)
  @ApiPropertyOptional({ description: 'The new name; null or blank clears it.', maxLength: KEY_NAME_MAX, nullable: true })
  name?: string | null;

  /** Grants, or their written form `payments:write,webhooks:read`. */
  @IsOptional()
  @IsPermissions()
  @ApiPropertyOptional({ description: `${PERMISSIONS_DESCRIPTION} Replaces the grants whole.`, oneOf: [{ type: 'object', additionalProperties: { type: 'string', enum: ['read', 'write'] } }, { type: 'string' }] })
  permissions?: Permissions | string | null;
}
