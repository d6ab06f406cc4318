import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { PasskeyView } from '../../passkeys.read-model';

/** GET /me/passkeys: the person's passkeys, oldest first (at most 10: one page). */
export class ListPasskeysQuery extends Query<Page<PasskeyView>> {
  constructor(readonly accountId: string) {
    super();
  }
}
