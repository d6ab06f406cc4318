import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LinkView } from '../../views';
import { LinkWrites } from '../link-writes';
import { RestoreLinkCommand } from './restore-link.command';

/**
 * Restores an archived link (POST /links/{id}/restore; decision 0030): customers can open
 * checkouts on it again. An active link changes nothing; a link the service disabled is 409
 * link_disabled; another business's 404 not_found.
 */
@CommandHandler(RestoreLinkCommand)
export class RestoreLinkHandler implements ICommandHandler<RestoreLinkCommand, LinkView> {
  constructor(private readonly writes: LinkWrites) {}

  async execute({ businessId, linkId, meta }: RestoreLinkCommand): Promise<LinkView> {
    return this.writes.change(businessId, linkId, { type: 'RestoreLink', businessId }, meta);
  }
}
