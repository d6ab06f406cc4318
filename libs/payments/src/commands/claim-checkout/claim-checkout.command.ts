import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingFor } from '../../app/access';
import type { ClaimCheckoutRequest } from './claim-checkout.dto';

/** POST /checkouts/{id}/claim: a transfer sent after an expired or canceled checkout closed, for the business to review. */
export class ClaimCheckoutCommand extends Command<void> {
  constructor(
    readonly checkoutId: string,
    readonly input: ClaimCheckoutRequest,
    readonly actingFor: ActingFor,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
