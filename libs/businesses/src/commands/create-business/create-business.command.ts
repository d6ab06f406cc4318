import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ApiKeyView, Business } from '../../views';

export interface CreatedBusiness {
  business: Business;
  /** Shown once: only the hash is kept. */
  secret_key: string;
  /** Shown once as well (it is not secret, but it is not stored in clear either). */
  publishable_key: string;
  keys: ApiKeyView[];
}

/**
 * Create a business with one secret and one publishable key, in one append: test keys for a
 * simulated business, live keys otherwise. `input` is checked against CreateBusinessDto.
 */
export class CreateBusinessCommand extends Command<CreatedBusiness> {
  constructor(
    readonly input: unknown,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
