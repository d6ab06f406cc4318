import { Query } from '@nestjs/cqrs';
import type { PaymentView } from '../../read/payment-view';

/** GET /payments/{id}, and every payment route's answer: a business's payment with its timeline. */
export class GetPaymentQuery extends Query<PaymentView> {
  constructor(
    readonly businessId: string,
    readonly paymentId: string,
  ) {
    super();
  }
}
