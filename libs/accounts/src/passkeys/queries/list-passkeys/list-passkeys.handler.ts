import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import { PasskeyView, PasskeysReadModel } from '../../passkeys.read-model';
import { ListPasskeysQuery } from './list-passkeys.query';

@QueryHandler(ListPasskeysQuery)
export class ListPasskeysHandler implements IQueryHandler<ListPasskeysQuery, Page<PasskeyView>> {
  constructor(private readonly read: PasskeysReadModel) {}

  execute({ accountId, query }: ListPasskeysQuery): Promise<Page<PasskeyView>> {
    return this.read.page(accountId, query);
  }
}
