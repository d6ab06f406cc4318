import { Query } from '@nestjs/cqrs';
import type { ReceiptView } from '@lib/payments';

/** GET {checkout_url}/<code>/receipt[?s=<checkout_id>]: the payment's public receipt (spec §2 Receipt), for the human receipt page. */
export class GetPageReceiptQuery extends Query<ReceiptView> {
  constructor(
    readonly code: string,
    /** `?s=`: on a link's page, the checkout whose payment's receipt is shown. */
    readonly checkoutId: string | null = null,
  ) {
    super();
  }
}
