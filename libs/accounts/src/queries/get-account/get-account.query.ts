import { Query } from '@nestjs/cqrs';
import type { AccountView } from '../../views';

/** GET /me: the signed-in person, the businesses they act for and their roles. */
export class GetAccountQuery extends Query<AccountView> {
  constructor(readonly accountId: string) {
    super();
  }
}
