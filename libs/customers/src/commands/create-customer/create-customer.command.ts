import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { CustomerView } from '../../views';
import type { CustomerBusiness } from '../customer-writes';
import type { CreateCustomerRequest } from './create-customer.dto';

/** POST /customers: a new customer of the business; answers the customer. */
export class CreateCustomerCommand extends Command<CustomerView> {
  constructor(
    readonly business: CustomerBusiness,
    readonly input: CreateCustomerRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
