import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { CustomerView } from '../../views';

/** GET /customers: a page of the business's customers, newest first (filters `email`, `blocked`). */
export class ListCustomersQuery extends Query<Page<CustomerView>> {
  constructor(
    readonly businessId: string,
    readonly query: Record<string, unknown>,
  ) {
    super();
  }
}
