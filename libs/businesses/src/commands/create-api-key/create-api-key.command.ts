import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ApiKeyView } from '../../views';

export interface CreatedKey {
  key: ApiKeyView;
  /** The whole key, shown once. */
  secret: string;
}

/** Create an API key for a business; `input` is checked against CreateApiKeyDto. */
export class CreateApiKeyCommand extends Command<CreatedKey> {
  constructor(
    readonly businessId: string,
    readonly input: unknown,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
