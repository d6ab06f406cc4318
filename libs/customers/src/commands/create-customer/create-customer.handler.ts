import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { CustomerView } from '../../views';
import { CustomerWrites } from '../customer-writes';
import { CreateCustomerCommand } from './create-customer.command';

/**
 * Creates a customer (POST /customers; decision 0029), in this order:
 * 1. the address: a customer already has it — claimed, or the customer it names exists, if only
 *    because a payment named it — is 409 customer_exists;
 * 2. the new customer's id is the one the address names (its derived id), so the payments that
 *    name the address later name this customer;
 * 3. the address is claimed for it (a concurrent claim conflicts, is decided again and refused),
 *    then CustomerCreated is appended on its stream, the read models waited for, the customer answered.
 */
@CommandHandler(CreateCustomerCommand)
export class CreateCustomerHandler implements ICommandHandler<CreateCustomerCommand, CustomerView> {
  constructor(private readonly writes: CustomerWrites) {}

  async execute({ business, input, meta }: CreateCustomerCommand): Promise<CustomerView> {
    const email = input.email;
    await this.writes.barrier(business.id);
    const owner = await this.writes.directory.ownerOf(business.id, email);
    const taken = () => new DomainRefusal('customer_exists', 'Another customer has this e-mail.', 'email');
    if (owner.holder !== null && (await this.writes.exists(owner.holder))) throw taken();
    const customerId = owner.customerId;
    if (owner.holder === null && (await this.writes.exists(customerId))) throw taken();
    await this.writes.claim(business.id, email, customerId, meta);
    await this.writes.decide(
      customerId,
      { type: 'CreateCustomer', customerId, businessId: business.id, mode: business.simulated ? 'test' : 'live', email, name: input.name || null, note: input.note ?? '' },
      meta,
    );
    return this.writes.answer(business.id, customerId);
  }
}
