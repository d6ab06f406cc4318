import { Permissions } from '../../permissions';
import { KeyName, KeyPermissions } from '../create-api-key/create-api-key.dto';
import { ChangeBody } from '@lib/http';

/**
 * The input of "change an API key" (PATCH /api-keys/{id}): send only what changes. `name` null or
 * blank clears it; `permissions` (restricted keys only) replaces the grants whole.
 */
@ChangeBody()
export class UpdateApiKeyDto {
  @KeyName()
  name?: string | null;

  /** Grants, or their written form `payments:write,webhooks:read`. */
  @KeyPermissions()
  permissions?: Permissions | string | null;
}
