import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { LinkWrites } from '../link-writes';
import { DisableLinkCommand } from './disable-link.command';

/**
 * The service disables a link (operator CLI `links disable <lnk_id> --reason …`; decision 0030;
 * the operator is the events' actor): POST /checkouts on its code answers 404 link_not_found ("no
 * active link with the code"), the business can no longer change or restore it (409
 * link_disabled), and its payments' remainders have no checkout page (409 remainder_unavailable).
 * A link already disabled: 409 link_disabled (nothing is recorded).
 */
@CommandHandler(DisableLinkCommand)
export class DisableLinkHandler implements ICommandHandler<DisableLinkCommand, { id: string; business_id: string; status: 'disabled' }> {
  constructor(private readonly writes: LinkWrites) {}

  async execute({ linkId, reason, meta }: DisableLinkCommand): Promise<{ id: string; business_id: string; status: 'disabled' }> {
    if (reason.trim() === '' || reason.length > 500) throw new DomainRefusal('invalid_request', 'A reason of 1 to 500 characters is required.', 'reason');
    let businessId = '';
    await this.writes.decide(
      linkId,
      (state) => {
        businessId = state.link?.businessId ?? '';
        // the decider changes nothing on a disabled link: say so rather than answer as if it had been disabled now (with this reason)
        if (state.link?.status === 'disabled' && !state.deleted) throw new DomainRefusal('link_disabled', 'This link is already disabled: nothing changed (it keeps the reason recorded then).');
        return { type: 'DisableLink', reason: reason.trim() };
      },
      meta,
    );
    return { id: linkId, business_id: businessId, status: 'disabled' };
  }
}
