import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { PaymentView } from '../../read/payment-view';

/** GET /payments: a page of the business's payments, newest first; `query` is the request's query string as parsed (decision 0012). */
export class ListPaymentsQuery extends Query<Page<PaymentView>> {
  constructor(
    readonly businessId: string,
    readonly query: Record<string, unknown>,
  ) {
    super();
  }
}
