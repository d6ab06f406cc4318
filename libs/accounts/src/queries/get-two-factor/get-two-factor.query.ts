import { Query } from '@nestjs/cqrs';
import type { TwoFactorView } from '../../two-factor/views';

/** GET /me/two-factor: whether two-step sign-in is on, since when, and how many recovery codes are left. */
export class GetTwoFactorQuery extends Query<TwoFactorView> {
  constructor(readonly accountId: string) {
    super();
  }
}
