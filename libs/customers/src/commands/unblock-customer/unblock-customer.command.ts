import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { CustomerView } from '../../views';

/** POST /customers/{id}/unblock: answers the customer. */
export class UnblockCustomerCommand extends Command<CustomerView> {
  constructor(
    readonly businessId: string,
    readonly customerId: string,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
