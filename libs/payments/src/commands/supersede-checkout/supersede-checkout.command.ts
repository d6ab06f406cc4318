import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { ActingFor } from '../../app/access';

/** POST /checkouts/{id}/supersede: the checkout is set aside for a new one (it stays watched until it expires). */
export class SupersedeCheckoutCommand extends Command<void> {
  constructor(
    readonly checkoutId: string,
    /** The business a key acts as (another business's checkout is not_found); null for a public caller. */
    readonly actingFor: ActingFor,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
