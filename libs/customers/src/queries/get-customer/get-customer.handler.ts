import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { foundOr404 } from '@lib/domain';
import { CustomersReadModel } from '../../customers.read-model';
import { CustomerView } from '../../views';
import { GetCustomerQuery } from './get-customer.query';

@QueryHandler(GetCustomerQuery)
export class GetCustomerHandler implements IQueryHandler<GetCustomerQuery, CustomerView> {
  constructor(private readonly read: CustomersReadModel) {}

  async execute({ businessId, customerId }: GetCustomerQuery): Promise<CustomerView> {
    return foundOr404(await this.read.get(businessId, customerId), 'No customer with this id.');
  }
}
