import { Query } from '@nestjs/cqrs';

/**
 * GET /payments: a page of the business's payments, newest first; `query` is the request's query
 * string as parsed (decision 0012). The answer is the response body as JSON text (`{"data":[…],
 * "has_more":…,"next_cursor":…}`, a Page of PaymentView), joined from the stored views (decision 0018).
 */
export class ListPaymentsQuery extends Query<string> {
  constructor(
    readonly businessId: string,
    readonly query: Record<string, unknown>,
  ) {
    super();
  }
}
