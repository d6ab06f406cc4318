import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { AccountsReadModel } from '../../accounts.read-model';
import { AccountView } from '../../views';
import { GetAccountQuery } from './get-account.query';

@QueryHandler(GetAccountQuery)
export class GetAccountHandler implements IQueryHandler<GetAccountQuery, AccountView> {
  constructor(private readonly read: AccountsReadModel) {}

  async execute({ accountId }: GetAccountQuery): Promise<AccountView> {
    const view = await this.read.view(accountId);
    if (view === null) throw new DomainRefusal('not_found', 'No account with this id.');
    return view;
  }
}
