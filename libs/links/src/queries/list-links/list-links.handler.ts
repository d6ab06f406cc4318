import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import { LinksReadModel } from '../../links.read-model';
import { LinkView } from '../../views';
import { ListLinksQuery } from './list-links.query';

@QueryHandler(ListLinksQuery)
export class ListLinksHandler implements IQueryHandler<ListLinksQuery, Page<LinkView>> {
  constructor(private readonly read: LinksReadModel) {}

  execute({ businessId, query }: ListLinksQuery): Promise<Page<LinkView>> {
    return this.read.list(businessId, query);
  }
}
