import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import { AccountsReadModel } from '../../accounts.read-model';
import { ACCOUNTS_CLOCK, AccountsClock } from '../../ports';
import { SessionView } from '../../views';
import { ListSessionsQuery } from './list-sessions.query';

@QueryHandler(ListSessionsQuery)
export class ListSessionsHandler implements IQueryHandler<ListSessionsQuery, Page<SessionView>> {
  constructor(
    private readonly read: AccountsReadModel,
    @Inject(ACCOUNTS_CLOCK) private readonly clock: AccountsClock,
  ) {}

  async execute({ accountId, currentSessionId, query }: ListSessionsQuery): Promise<Page<SessionView>> {
    return this.read.sessions(accountId, currentSessionId, this.clock(), query);
  }
}
