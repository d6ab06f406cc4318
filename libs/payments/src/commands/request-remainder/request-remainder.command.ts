import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingBusiness } from '../../app/access';

/** POST /payments/{id}/request-remainder: open (or return the open) checkout for what is left of an underpaid payment. Resolves its id, and a link payment's page. */
export class RequestRemainderCommand extends Command<{ checkoutId: string; linkPageUrl: string | null }> {
  constructor(
    readonly business: ActingBusiness,
    readonly paymentId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
