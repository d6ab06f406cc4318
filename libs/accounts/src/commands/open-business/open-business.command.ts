import { Command } from '@nestjs/cqrs';
import type { Business } from '@lib/businesses';
import type { WriteMeta } from '@lib/eventstore';
import type { OpenBusinessRequest } from './open-business.dto';

/** POST /businesses: a business created for a signed-in person, who becomes its owner. */
export class OpenBusinessCommand extends Command<Business> {
  constructor(
    readonly accountId: string,
    readonly input: OpenBusinessRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
