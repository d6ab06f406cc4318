import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingBusiness } from '../../app/access';
import type { OpenCheckoutRequest } from './open-checkout.dto';

/**
 * POST /checkouts: a customer (or the business) opens a checkout on a payment's code. `caller` is
 * the business a secret or restricted key acts as (null for a public caller): another business's
 * payment code is then payment_not_found, as for an unknown code. Resolves the checkout's id and
 * its business.
 */
export class OpenCheckoutCommand extends Command<{ checkoutId: string; businessId: string }> {
  constructor(
    readonly input: OpenCheckoutRequest,
    readonly caller: ActingBusiness | null,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
