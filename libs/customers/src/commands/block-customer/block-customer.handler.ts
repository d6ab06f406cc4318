import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CustomerView } from '../../views';
import { CustomerWrites } from '../customer-writes';
import { BlockCustomerCommand } from './block-customer.command';

/**
 * Blocks a customer (POST /customers/{id}/block; decision 0029): its payments and checkouts are
 * refused from then on (403 customer_blocked). Blocking a blocked customer changes nothing. Test
 * keys on a live business are refused before (403 test_mode_unavailable, §5.4).
 */
@CommandHandler(BlockCustomerCommand)
export class BlockCustomerHandler implements ICommandHandler<BlockCustomerCommand, CustomerView> {
  constructor(private readonly writes: CustomerWrites) {}

  async execute({ businessId, customerId, meta }: BlockCustomerCommand): Promise<CustomerView> {
    return this.writes.setBlocked('BlockCustomer', businessId, customerId, meta);
  }
}
