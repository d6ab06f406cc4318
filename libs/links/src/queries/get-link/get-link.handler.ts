import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { LinksReadModel } from '../../links.read-model';
import { LinkView } from '../../views';
import { GetLinkQuery } from './get-link.query';

@QueryHandler(GetLinkQuery)
export class GetLinkHandler implements IQueryHandler<GetLinkQuery, LinkView> {
  constructor(private readonly read: LinksReadModel) {}

  async execute({ businessId, linkId }: GetLinkQuery): Promise<LinkView> {
    const link = await this.read.get(businessId, linkId);
    if (link === null) throw new DomainRefusal('not_found', 'No link with this id.');
    return link;
  }
}
