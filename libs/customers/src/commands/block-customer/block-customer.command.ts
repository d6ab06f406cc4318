import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { CustomerView } from '../../views';

/** POST /customers/{id}/block: answers the customer. */
export class BlockCustomerCommand extends Command<CustomerView> {
  constructor(
    readonly businessId: string,
    readonly customerId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
