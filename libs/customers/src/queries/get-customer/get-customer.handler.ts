import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { CustomersReadModel } from '../../customers.read-model';
import { CustomerView } from '../../views';
import { GetCustomerQuery } from './get-customer.query';

@QueryHandler(GetCustomerQuery)
export class GetCustomerHandler implements IQueryHandler<GetCustomerQuery, CustomerView> {
  constructor(private readonly read: CustomersReadModel) {}

  async execute({ businessId, customerId }: GetCustomerQuery): Promise<CustomerView> {
    const customer = await this.read.get(businessId, customerId);
    if (customer === null) throw new DomainRefusal('not_found', 'No customer with this id.');
    return customer;
  }
}
