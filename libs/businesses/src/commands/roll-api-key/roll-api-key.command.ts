import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { CreatedKey } from '../create-api-key/create-api-key.command';

/**
 * Give a business's key a new secret (POST /api-keys/{id}/roll; decision 0039): the old secret
 * stops working at once. The new whole key is in the answer and nowhere else.
 */
export class RollApiKeyCommand extends Command<CreatedKey> {
  constructor(
    readonly businessId: string,
    readonly keyId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
