import { Query } from '@nestjs/cqrs';
import type { WalletView } from '../../views';

/** The business's wallet (GET /wallet): 404 not_found when it has none. `simulated`: the business's; a live one receives only where this service watches. */
export class GetWalletQuery extends Query<WalletView> {
  constructor(
    readonly businessId: string,
    readonly simulated: boolean,
  ) {
    super();
  }
}
