import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CommandRunner } from '@lib/eventstore';
import type { Page } from '@lib/http';
import { parseSearchRequest } from '../../search-request';
import { SearchReadModel } from '../../search.read-model';
import { SearchQuery } from './search.query';

@QueryHandler(SearchQuery)
export class SearchHandler implements IQueryHandler<SearchQuery, Page<object>> {
  constructor(
    private readonly read: SearchReadModel,
    private readonly runner: CommandRunner,
  ) {}

  async execute({ businessId, key, query }: SearchQuery): Promise<Page<object>> {
    const request = parseSearchRequest(query, key);
    // read your writes: a payment is answered before the read models have it (decision 0019)
    if (this.runner.hasUnseenWrites(businessId)) await this.runner.readBarrier(businessId);
    return this.read.search(businessId, request);
  }
}
