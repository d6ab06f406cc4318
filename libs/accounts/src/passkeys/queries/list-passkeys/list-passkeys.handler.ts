import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import { PasskeyView, PasskeysReadModel } from '../../passkeys.read-model';
import { ListPasskeysQuery } from './list-passkeys.query';

@QueryHandler(ListPasskeysQuery)
export class ListPasskeysHandler implements IQueryHandler<ListPasskeysQuery, Page<PasskeyView>> {
  constructor(private readonly read: PasskeysReadModel) {}

  async execute({ accountId }: ListPasskeysQuery): Promise<Page<PasskeyView>> {
    return { data: await this.read.list(accountId), has_more: false, next_cursor: null };
  }
}
