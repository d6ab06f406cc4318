import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import { WalletTransactionView, WalletTransactionsReadModel } from '../../sends/wallet-transactions.read-model';
import { ListWalletTransactionsQuery } from './list-wallet-transactions.query';

@QueryHandler(ListWalletTransactionsQuery)
export class ListWalletTransactionsHandler implements IQueryHandler<ListWalletTransactionsQuery, Page<WalletTransactionView>> {
  constructor(private readonly read: WalletTransactionsReadModel) {}

  execute({ businessId, query }: ListWalletTransactionsQuery): Promise<Page<WalletTransactionView>> {
    return this.read.list(businessId, query);
  }
}
