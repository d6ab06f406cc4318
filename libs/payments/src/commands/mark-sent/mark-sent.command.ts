import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingFor } from '../../app/access';
import type { SimulatedTransfer } from '../../domain/checkout.decider';

/** POST /checkouts/{id}/mark-sent: a simulated business's customer sends the transfer now. */
export class MarkSentCommand extends Command<void> {
  constructor(
    readonly checkoutId: string,
    readonly simulate: SimulatedTransfer,
    readonly actingFor: ActingFor,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
