import { Query } from '@nestjs/cqrs';
import type { WalletTransactionView } from '../../sends/wallet-transactions.read-model';

/** GET /wallet/transactions/{id}: one of the business's wallet transactions, or 404 not_found. */
export class GetWalletTransactionQuery extends Query<WalletTransactionView> {
  constructor(
    readonly businessId: string,
    readonly id: string,
  ) {
    super();
  }
}
