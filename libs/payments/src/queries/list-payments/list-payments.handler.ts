import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { PaymentsReadModel } from '../../read/payments.read-model';
import { ListPaymentsQuery } from './list-payments.query';

/**
 * Lists payments from the read model, as the response body's JSON text. The query string's rules
 * (status, metadata[key], customer, reference, created[…], limit, cursor; unknown parameters
 * refused, `field` = the parameter) live in read/list-payments-query.ts: a query string has no
 * DTO class to check it.
 */
@QueryHandler(ListPaymentsQuery)
export class ListPaymentsHandler implements IQueryHandler<ListPaymentsQuery, string> {
  constructor(private readonly read: PaymentsReadModel) {}

  execute({ businessId, query }: ListPaymentsQuery): Promise<string> {
    return this.read.listPaymentsJson(businessId, query);
  }
}
