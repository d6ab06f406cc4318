import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { LinkView } from '../../views';

/** POST /links/{id}/restore: answers LinkView. */
export class RestoreLinkCommand extends Command<LinkView> {
  constructor(
    readonly businessId: string,
    readonly linkId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
