import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { WalletTransactionView } from '../../sends/wallet-transactions.read-model';

/** GET /wallet/transactions: the business's wallet transactions, newest first, with cursors. */
export class ListWalletTransactionsQuery extends Query<Page<WalletTransactionView>> {
  constructor(
    readonly businessId: string,
    readonly query: Record<string, unknown>,
  ) {
    super();
  }
}
