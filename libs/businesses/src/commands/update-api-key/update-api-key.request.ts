import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional } from 'class-validator';
import { ChangeBody, CheckedBy, PlainText } from '@lib/http';
import { KEY_NAME_MAX } from '../create-api-key/create-api-key.dto';
import { PERMISSIONS_RULE } from '../create-api-key/create-api-key.request';
import { OptionalText } from '../text';

/**
 * PATCH /api-keys/{id} (decision 0039): the HTTP body, as the document shows it; the use case
 * checks it again against UpdateApiKeyDto. Send only what changes.
 */
@ChangeBody()
export class UpdateApiKeyRequest {
  @PlainText('single-line')
  @OptionalText('name', KEY_NAME_MAX)
  @ApiPropertyOptional({ description: 'The new name; null or blank clears it.', nullable: true })
  name?: string | null;

  @IsOptional()
  @IsObject({ message: 'permissions must be an object of resource to access (read or write)' })
  @CheckedBy('permissions.ts (normalizePermissions) and the business decider', { ...PERMISSIONS_RULE, description: `${PERMISSIONS_RULE.description} Replaces the grants whole (a restricted key keeps at least one).` })
  permissions?: Record<string, string>;
}
