import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { CustomerView } from '../../views';
import type { UpdateCustomerRequest } from './update-customer.dto';

/** PATCH /customers/{id}: change the customer's name, e-mail or note; answers the customer. */
export class UpdateCustomerCommand extends Command<CustomerView> {
  constructor(
    readonly businessId: string,
    readonly customerId: string,
    readonly input: UpdateCustomerRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
