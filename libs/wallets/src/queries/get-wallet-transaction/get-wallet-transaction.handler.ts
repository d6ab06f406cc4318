import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { WalletTransactionView, WalletTransactionsReadModel } from '../../sends/wallet-transactions.read-model';
import { GetWalletTransactionQuery } from './get-wallet-transaction.query';

@QueryHandler(GetWalletTransactionQuery)
export class GetWalletTransactionHandler implements IQueryHandler<GetWalletTransactionQuery, WalletTransactionView> {
  constructor(private readonly read: WalletTransactionsReadModel) {}

  async execute({ businessId, id }: GetWalletTransactionQuery): Promise<WalletTransactionView> {
    const found = await this.read.get(businessId, id);
    // another business's transaction reads as none
    if (found === null) throw new DomainRefusal('not_found', 'No wallet transaction with this id.');
    return found;
  }
}
