import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { LinkView } from '../../views';
import type { LinkBusiness } from '../link-writes';
import type { CreateLinkRequest } from './create-link.dto';

/** POST /links: a new payment link of the business; answers the link. */
export class CreateLinkCommand extends Command<LinkView> {
  constructor(
    readonly business: LinkBusiness,
    readonly input: CreateLinkRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
