import { Query } from '@nestjs/cqrs';
import type { ReceiptView } from '@lib/payments';

/** GET {checkout_url}/<code>/receipt: the payment's public receipt (spec §2 Receipt), for the human receipt page. */
export class GetPageReceiptQuery extends Query<ReceiptView> {
  constructor(readonly code: string) {
    super();
  }
}
