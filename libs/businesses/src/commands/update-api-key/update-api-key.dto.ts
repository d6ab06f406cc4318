import { IsOptional } from 'class-validator';
import { Permissions } from '../../permissions';
import { OptionalText } from '../text';
import { IsPermissions, KEY_NAME_MAX } from '../create-api-key/create-api-key.dto';
import { ChangeBody, PlainText } from '@lib/http';

/**
 * The input of "change an API key" (PATCH /api-keys/{id}): send only what changes. `name` null or
 * blank clears it; `permissions` (restricted keys only) replaces the grants whole.
 */
@ChangeBody()
export class UpdateApiKeyDto {
  @PlainText('single-line')
  @OptionalText('name', KEY_NAME_MAX)
  name?: string | null;

  /** Grants, or their written form `payments:write,webhooks:read`. */
  @IsOptional()
  @IsPermissions()
  permissions?: Permissions | string | null;
}
