import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import { CustomersReadModel } from '../../customers.read-model';
import { CustomerView } from '../../views';
import { ListCustomersQuery } from './list-customers.query';

@QueryHandler(ListCustomersQuery)
export class ListCustomersHandler implements IQueryHandler<ListCustomersQuery, Page<CustomerView>> {
  constructor(private readonly read: CustomersReadModel) {}

  execute({ businessId, query }: ListCustomersQuery): Promise<Page<CustomerView>> {
    return this.read.list(businessId, query);
  }
}
