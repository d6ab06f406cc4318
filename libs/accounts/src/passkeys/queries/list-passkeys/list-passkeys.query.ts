import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { PasskeyView } from '../../passkeys.read-model';

/**
 * GET /me/passkeys: a page of the person's passkeys, oldest first; `query` is the query string
 * (`limit`, `cursor`; anything else is 400 invalid_request).
 */
export class ListPasskeysQuery extends Query<Page<PasskeyView>> {
  constructor(
    readonly accountId: string,
    readonly query: Record<string, unknown> | null | undefined,
  ) {
    super();
  }
}
