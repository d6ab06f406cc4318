import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingBusiness } from '../../app/access';

/** POST /payments/{id}/cancel: the business cancels a pending payment (its open checkouts fail through the process manager). */
export class CancelPaymentCommand extends Command<void> {
  constructor(
    readonly business: ActingBusiness,
    readonly paymentId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
