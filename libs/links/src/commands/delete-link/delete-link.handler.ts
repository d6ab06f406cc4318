import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LinkWrites } from '../link-writes';
import { DeleteLinkCommand } from './delete-link.command';

/**
 * Deletes a link (DELETE /links/{id}; decision 0030): only a link without payments (409
 * link_has_payments: archive it) — decided on the link's stream, where each payment it makes is
 * recorded first. Its code then answers 404 link_not_found; the id 404 not_found.
 */
@CommandHandler(DeleteLinkCommand)
export class DeleteLinkHandler implements ICommandHandler<DeleteLinkCommand, { kind: 'link'; id: string; deleted: true }> {
  constructor(private readonly writes: LinkWrites) {}

  async execute({ businessId, linkId, meta }: DeleteLinkCommand): Promise<{ kind: 'link'; id: string; deleted: true }> {
    await this.writes.decide(linkId, { type: 'DeleteLink', businessId }, meta);
    return { kind: 'link', id: linkId, deleted: true };
  }
}
