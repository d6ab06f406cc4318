import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { PaymentDomainError } from '../../domain/errors';
import { isPaymentId } from '../../domain/stream-categories';
import { ReceiptView } from '../../read/receipt-view';
import { PaymentsReadModel } from '../../read/payments.read-model';
import { GetReceiptQuery } from './get-receipt.query';

/** The receipt from the read model; not_found for a malformed or unknown payment id. */
@QueryHandler(GetReceiptQuery)
export class GetReceiptHandler implements IQueryHandler<GetReceiptQuery, ReceiptView> {
  constructor(private readonly read: PaymentsReadModel) {}

  async execute({ paymentId }: GetReceiptQuery): Promise<ReceiptView> {
    const receipt = isPaymentId(paymentId) ? await this.read.getReceipt(paymentId) : null;
    if (!receipt) throw new PaymentDomainError('not_found', `No receipt ${paymentId}.`);
    return receipt;
  }
}
