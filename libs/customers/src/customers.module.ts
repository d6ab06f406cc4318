import { Global, Module } from '@nestjs/common';
import { CUSTOMER_GATE } from '@lib/payments';
import { BlockCustomerHandler } from './commands/block-customer/block-customer.handler';
import { CreateCustomerHandler } from './commands/create-customer/create-customer.handler';
import { CustomerWrites } from './commands/customer-writes';
import { UnblockCustomerHandler } from './commands/unblock-customer/unblock-customer.handler';
import { UpdateCustomerHandler } from './commands/update-customer/update-customer.handler';
import { CustomerDirectory } from './customer-directory';
import { CustomersReadModel } from './customers.read-model';
import { GetCustomerHandler } from './queries/get-customer/get-customer.handler';
import { ListCustomersHandler } from './queries/list-customers/list-customers.handler';

export const CUSTOMER_HANDLERS = [CreateCustomerHandler, UpdateCustomerHandler, BlockCustomerHandler, UnblockCustomerHandler, GetCustomerHandler, ListCustomersHandler];

/**
 * The customers capability in a Nest app (decision 0029): its use cases for the buses, and the
 * payments capability's CUSTOMER_GATE (which customer an e-mail names, and whether it is
 * blocked). Global, so PaymentsCoreModule's handlers find the gate without importing this
 * capability; the API and the worker import it.
 */
@Global()
@Module({
  providers: [CustomersReadModel, CustomerDirectory, CustomerWrites, ...CUSTOMER_HANDLERS, { provide: CUSTOMER_GATE, useExisting: CustomerDirectory }],
  exports: [CUSTOMER_GATE, CustomersReadModel, CustomerDirectory],
})
export class CustomersModule {}
