import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { PaymentsReadModel } from '../../read/payments.read-model';
import { ListPaymentsQuery } from './list-payments.query';
import { PAYMENT_PAGES, PaymentPages } from './payment-pages';

/**
 * Lists payments from the read model, as the response body's JSON text. The query string's rules
 * (status, metadata[key], customer, reference, created[…], limit, cursor; unknown parameters
 * refused, `field` = the parameter) live in read/list-payments-query.ts: a query string has no
 * DTO class to check it. A page asked again before any of the business's payments changed is
 * answered from this process's memory (PAYMENT_PAGES); a refused query string is never kept.
 */
@QueryHandler(ListPaymentsQuery)
export class ListPaymentsHandler implements IQueryHandler<ListPaymentsQuery, string> {
  constructor(
    private readonly read: PaymentsReadModel,
    @Inject(PAYMENT_PAGES) private readonly pages: PaymentPages,
  ) {}

  execute({ businessId, query }: ListPaymentsQuery): Promise<string> {
    return this.pages.get(businessId, JSON.stringify(query ?? {}), () => this.read.listPaymentsJson(businessId, query));
  }
}
