import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { LinkView } from '../../views';
import type { UpdateLinkRequest } from './update-link.dto';

/** PATCH /links/{id}: change what the link sells or how; answers the link. */
export class UpdateLinkCommand extends Command<LinkView> {
  constructor(
    readonly businessId: string,
    readonly linkId: string,
    readonly input: UpdateLinkRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
