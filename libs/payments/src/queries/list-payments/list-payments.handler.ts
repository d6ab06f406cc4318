import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import { PaymentView } from '../../read/payment-view';
import { PaymentsReadModel } from '../../read/payments.read-model';
import { ListPaymentsQuery } from './list-payments.query';

/**
 * Lists payments from the read model. The query string's rules (status, metadata[key], customer,
 * reference, created[…], limit, cursor; unknown parameters refused, `field` = the parameter)
 * live in read/list-payments-query.ts: a query string has no DTO class to check it.
 */
@QueryHandler(ListPaymentsQuery)
export class ListPaymentsHandler implements IQueryHandler<ListPaymentsQuery, Page<PaymentView>> {
  constructor(private readonly read: PaymentsReadModel) {}

  execute({ businessId, query }: ListPaymentsQuery): Promise<Page<PaymentView>> {
    return this.read.listPayments(businessId, query);
  }
}
