import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { foundOr404 } from '@lib/domain';
import { LinksReadModel } from '../../links.read-model';
import { LinkView } from '../../views';
import { GetLinkQuery } from './get-link.query';

@QueryHandler(GetLinkQuery)
export class GetLinkHandler implements IQueryHandler<GetLinkQuery, LinkView> {
  constructor(private readonly read: LinksReadModel) {}

  async execute({ businessId, linkId }: GetLinkQuery): Promise<LinkView> {
    return foundOr404(await this.read.get(businessId, linkId), 'No link with this id.');
  }
}
