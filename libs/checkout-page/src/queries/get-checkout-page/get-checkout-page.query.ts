import { Query } from '@nestjs/cqrs';
import type { CheckoutPageModel } from '../../page-model';

/** GET {checkout_url}/<code>[?s=<checkout_id>]: what the hosted checkout page shows. */
export class GetCheckoutPageQuery extends Query<CheckoutPageModel> {
  constructor(
    readonly code: string,
    /** `?s=`: the checkout to resume, when it is one of this payment's. */
    readonly checkoutId: string | null,
  ) {
    super();
  }
}
