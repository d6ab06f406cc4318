import { ChangeBody } from '@lib/http';
import { KeyNameProperty, PERMISSIONS_RULE, PermissionsProperty } from '../create-api-key/create-api-key.request';

/**
 * PATCH /api-keys/{id} (decision 0039): the HTTP body, as the document shows it; the use case
 * checks it again against UpdateApiKeyDto. Send only what changes.
 */
@ChangeBody()
export class UpdateApiKeyRequest {
  @KeyNameProperty('The new name; null or blank clears it.')
  name?: string | null;

  @PermissionsProperty({ ...PERMISSIONS_RULE, description: `${PERMISSIONS_RULE.description} Replaces the grants whole (a restricted key keeps at least one).` })
  permissions?: Record<string, string>;
}
