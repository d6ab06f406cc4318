import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ApiKeyView } from '../../views';

/**
 * Revoke an API key. With `businessId`, a key of another business is not found (what the API
 * answers a business); without, any key (the operator).
 */
export class RevokeApiKeyCommand extends Command<ApiKeyView> {
  constructor(
    readonly keyId: string,
    readonly businessId: string | undefined = undefined,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
