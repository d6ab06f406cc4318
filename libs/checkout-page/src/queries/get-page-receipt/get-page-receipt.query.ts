import { Query } from '@nestjs/cqrs';
import type { ReceiptView } from '@lib/payments';

/** What the human receipt page is rendered from: the public receipt, and whether its business is simulated (its hashes are on no chain). */
export interface PageReceipt {
  receipt: ReceiptView;
  simulated: boolean;
}

/** GET {checkout_url}/<code>/receipt[?s=<checkout_id>]: the payment's public receipt (spec §2 Receipt), for the human receipt page. */
export class GetPageReceiptQuery extends Query<PageReceipt> {
  constructor(
    readonly code: string,
    /** `?s=`: on a link's page, the checkout whose payment's receipt is shown. */
    readonly checkoutId: string | null = null,
  ) {
    super();
  }
}
