import { Query } from '@nestjs/cqrs';
import type { WalletView } from '../../views';

/** The business's wallet (GET /wallet): 404 not_found when it has none. */
export class GetWalletQuery extends Query<WalletView> {
  constructor(readonly businessId: string) {
    super();
  }
}
