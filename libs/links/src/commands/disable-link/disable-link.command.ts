import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';

/** An operator disables a link (CLI `links disable`): answers the link's id and business. */
export class DisableLinkCommand extends Command<{ id: string; business_id: string; status: 'disabled' }> {
  constructor(
    readonly linkId: string,
    readonly reason: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
