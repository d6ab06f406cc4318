import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingFor } from '../../app/access';

/** POST /checkouts/{id}/card-attempts/{attempt_id}/confirm: the customer came back from the secure page. */
export class ConfirmCardAttemptCommand extends Command<void> {
  constructor(
    readonly checkoutId: string,
    readonly attemptId: string,
    readonly actingFor: ActingFor,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
