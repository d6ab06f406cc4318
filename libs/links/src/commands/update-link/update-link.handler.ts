import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { canonicalRails, carriedAssets } from '@lib/businesses';
import { checkMetadataPatch, mergeMetadata } from '@lib/payments';
import type { LinkFields } from '../../events';
import { LinkView } from '../../views';
import { LinkWrites, checkLinkPrice } from '../link-writes';
import { UpdateLinkCommand } from './update-link.command';

/**
 * Changes a link (PATCH /links/{id}; decision 0030): send only what changes (a body with no field
 * is refused by the validation pipe: @ChangeBody); the price is checked against the currency after the change; metadata
 * merges by key as a payment's PATCH. Another business's or a deleted link: 404 not_found; a
 * disabled one: 409 link_disabled. Payments already made keep what they were made with. A change
 * that changes nothing records nothing.
 */
@CommandHandler(UpdateLinkCommand)
export class UpdateLinkHandler implements ICommandHandler<UpdateLinkCommand, LinkView> {
  constructor(private readonly writes: LinkWrites) {}

  async execute({ businessId, linkId, input, meta }: UpdateLinkCommand): Promise<LinkView> {
    const patch = input.metadata === undefined ? undefined : checkMetadataPatch(input.metadata);
    await this.writes.decide(
      linkId,
      (state) => {
        const link = state.link;
        const change: Partial<LinkFields> = {};
        if (input.name !== undefined) change.name = input.name;
        if (input.description !== undefined) change.description = input.description;
        if (input.amount !== undefined) change.amount = input.amount;
        if (input.currency !== undefined) change.currency = input.currency;
        if (input.rails !== undefined) change.rails = input.rails === null ? null : canonicalRails(input.rails);
        if (input.assets !== undefined) change.assets = input.assets === null ? null : carriedAssets(input.assets);
        if (input.success_url !== undefined) change.success_url = input.success_url;
        if (input.ask_email !== undefined) change.ask_email = input.ask_email;
        if (link !== null && !state.deleted && link.businessId === businessId) {
          if (patch !== undefined) change.metadata = mergeMetadata(link.metadata, patch);
          if (change.amount !== undefined || change.currency !== undefined) checkLinkPrice(change.amount ?? link.amount, change.currency ?? link.currency);
        }
        return { type: 'UpdateLink', businessId, change };
      },
      meta,
      businessId,
    );
    return this.writes.answer(businessId, linkId);
  }
}
