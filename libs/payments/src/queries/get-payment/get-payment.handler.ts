import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { PaymentDomainError } from '../../domain/errors';
import { PaymentView } from '../../read/payment-view';
import { PaymentsReadModel } from '../../read/payments.read-model';
import { GetPaymentQuery } from './get-payment.query';

/** The payment from the read model; not_found when there is none or it is another business's. */
@QueryHandler(GetPaymentQuery)
export class GetPaymentHandler implements IQueryHandler<GetPaymentQuery, PaymentView> {
  constructor(private readonly read: PaymentsReadModel) {}

  async execute({ businessId, paymentId }: GetPaymentQuery): Promise<PaymentView> {
    const view = await this.read.getPayment(businessId, paymentId);
    if (!view) throw new PaymentDomainError('not_found', `No payment ${paymentId}.`);
    return view;
  }
}
