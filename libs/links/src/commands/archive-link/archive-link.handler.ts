import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LinkView } from '../../views';
import { LinkWrites } from '../link-writes';
import { ArchiveLinkCommand } from './archive-link.command';

/**
 * Archives a link (POST /links/{id}/archive; decision 0030): POST /checkouts on its code answers
 * 410 link_archived, its payments go on (a remainder has no checkout page: 409
 * remainder_unavailable). Archiving an archived link changes nothing; a disabled one is 409
 * link_disabled; another business's 404 not_found.
 */
@CommandHandler(ArchiveLinkCommand)
export class ArchiveLinkHandler implements ICommandHandler<ArchiveLinkCommand, LinkView> {
  constructor(private readonly writes: LinkWrites) {}

  async execute({ businessId, linkId, meta }: ArchiveLinkCommand): Promise<LinkView> {
    return this.writes.change(businessId, linkId, { type: 'ArchiveLink', businessId }, meta);
  }
}
