import { Query } from '@nestjs/cqrs';
import type { CustomerView } from '../../views';

/** GET /customers/{id}: 404 not_found for none, or another business's. */
export class GetCustomerQuery extends Query<CustomerView> {
  constructor(
    readonly businessId: string,
    readonly customerId: string,
  ) {
    super();
  }
}
