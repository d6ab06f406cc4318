import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { ApiKeyView } from '../../views';

/** A page of a business's API keys, revoked ones included, newest first (GET /api-keys); never a secret. */
export class ListApiKeysQuery extends Query<Page<ApiKeyView>> {
  constructor(
    readonly businessId: string,
    readonly query: Record<string, unknown> | null | undefined,
  ) {
    super();
  }
}
