import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { emailKey } from '../../identity';
import { CustomerView } from '../../views';
import { CustomerWrites } from '../customer-writes';
import { UpdateCustomerCommand } from './update-customer.command';

/**
 * Changes a customer (PATCH /customers/{id}; decision 0029): the business's customer (recorded,
 * or known from payments: then recorded first) else 404 not_found; a new address is claimed
 * first (another customer's is 409 customer_exists), then the change is appended, then the old
 * address is released (payments naming it later name a new customer). An address that changes
 * only in case keeps its claim. A change that changes nothing records nothing; a body with no
 * field is refused by the validation pipe (@ChangeBody, 400 invalid_request).
 */
@CommandHandler(UpdateCustomerCommand)
export class UpdateCustomerHandler implements ICommandHandler<UpdateCustomerCommand, CustomerView> {
  constructor(private readonly writes: CustomerWrites) {}

  async execute({ businessId, customerId, input, meta }: UpdateCustomerCommand): Promise<CustomerView> {
    const { current, known } = await this.writes.load(businessId, customerId);
    const moves = input.email !== undefined && emailKey(input.email) !== emailKey(current.email);
    if (moves) await this.writes.claim(businessId, input.email!, customerId, meta);
    await this.writes.decide(
      customerId,
      {
        type: 'UpdateCustomer',
        customerId,
        businessId,
        known,
        ...(input.email !== undefined ? { email: input.email } : {}),
        ...(input.name !== undefined ? { name: input.name || null } : {}),
        ...(input.note !== undefined ? { note: input.note } : {}),
      },
      meta,
    );
    if (moves) await this.writes.release(businessId, current.email, customerId, meta);
    return this.writes.answer(businessId, customerId);
  }
}
