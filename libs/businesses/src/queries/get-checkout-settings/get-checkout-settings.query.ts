import { Query } from '@nestjs/cqrs';
import type { CheckoutSettingsView } from '../../checkout-settings';

/** The business's checkout settings (GET /checkout-settings): the defaults until it changes them. */
export class GetCheckoutSettingsQuery extends Query<CheckoutSettingsView> {
  constructor(readonly businessId: string) {
    super();
  }
}
