import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { LinkView } from '../../views';

/** POST /links/{id}/archive: answers LinkView. */
export class ArchiveLinkCommand extends Command<LinkView> {
  constructor(
    readonly businessId: string,
    readonly linkId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
