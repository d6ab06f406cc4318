import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { Business } from '../../views';

/** An operator lifts a business's suspension. `meta.actor` is the operator (operatorActor). */
export class ReinstateBusinessCommand extends Command<Business> {
  constructor(
    readonly businessId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
