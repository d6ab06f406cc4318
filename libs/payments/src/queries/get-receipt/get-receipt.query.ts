import { Query } from '@nestjs/cqrs';
import type { ReceiptView } from '../../read/receipt-view';

/** GET /public/receipts/{id}: a payment's public receipt (spec §2). */
export class GetReceiptQuery extends Query<ReceiptView> {
  constructor(readonly paymentId: string) {
    super();
  }
}
