import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ApiKeyView } from '../../views';

/**
 * Change a key's name or a restricted key's grants (PATCH /api-keys/{id}; decision 0039); `input`
 * is checked against UpdateApiKeyDto. A key of another business is not found. `steppedUp`: the
 * caller proved its person within 15 minutes (spec §5.6), which giving the key more access needs.
 */
export class UpdateApiKeyCommand extends Command<ApiKeyView> {
  constructor(
    readonly businessId: string,
    readonly keyId: string,
    readonly input: unknown,
    readonly steppedUp: boolean,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
