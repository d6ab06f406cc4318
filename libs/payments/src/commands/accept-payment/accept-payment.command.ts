import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingBusiness } from '../../app/access';

/** POST /payments/{id}/accept: the business accepts an underpaid or needs_review payment (it succeeds). */
export class AcceptPaymentCommand extends Command<void> {
  constructor(
    readonly business: ActingBusiness,
    readonly paymentId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
