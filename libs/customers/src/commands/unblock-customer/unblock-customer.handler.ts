import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CustomerView } from '../../views';
import { CustomerWrites } from '../customer-writes';
import { UnblockCustomerCommand } from './unblock-customer.command';

/** Unblocks a customer (POST /customers/{id}/unblock; decision 0029): an unblocked customer changes nothing. */
@CommandHandler(UnblockCustomerCommand)
export class UnblockCustomerHandler implements ICommandHandler<UnblockCustomerCommand, CustomerView> {
  constructor(private readonly writes: CustomerWrites) {}

  async execute({ businessId, customerId, meta }: UnblockCustomerCommand): Promise<CustomerView> {
    return this.writes.setBlocked('UnblockCustomer', businessId, customerId, meta);
  }
}
