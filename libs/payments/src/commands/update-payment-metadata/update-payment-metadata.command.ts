import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingBusiness } from '../../app/access';

/** PATCH /payments/{id}: merge the metadata by key ('' or null removes a key; null clears all). */
export class UpdatePaymentMetadataCommand extends Command<void> {
  constructor(
    readonly business: ActingBusiness,
    readonly paymentId: string,
    /** The body's `metadata` as sent (undefined when left out: changes nothing). */
    readonly metadata: unknown,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
