import { Query } from '@nestjs/cqrs';
import type { CheckoutView } from '../../read/checkout-view';

/**
 * GET /checkouts/{id}, and every checkout route's answer. `businessId` scopes it to the business
 * a key acts as (another business's checkout is not_found); `secretFields` (the owner's secret
 * key) adds `email`, `reporting` and `fee_rate_bps`.
 */
export class GetCheckoutQuery extends Query<CheckoutView> {
  constructor(
    readonly checkoutId: string,
    readonly options: { businessId: string | null; secretFields: boolean },
  ) {
    super();
  }
}
