import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CommandRunner } from '@lib/eventstore';
import { PaymentsReadModel, ReceiptView } from '@lib/payments';
import { CheckoutPageNotFound, PAYMENT_CODE } from '../../page-model';
import { GetPageReceiptQuery } from './get-page-receipt.query';

/** The public receipt of the payment a page code names: the same object GET /public/receipts/{id} answers. */
@QueryHandler(GetPageReceiptQuery)
export class GetPageReceiptHandler implements IQueryHandler<GetPageReceiptQuery, ReceiptView> {
  constructor(
    private readonly read: PaymentsReadModel,
    private readonly runner: CommandRunner,
  ) {}

  async execute({ code }: GetPageReceiptQuery): Promise<ReceiptView> {
    if (!PAYMENT_CODE.test(code)) throw new CheckoutPageNotFound('receipt');
    if (this.runner.hasUnseenWrites(null)) await this.runner.readBarrier(null);
    const found = await this.read.paymentIdByCode(code);
    const receipt = found ? await this.read.getReceipt(found.paymentId) : null;
    if (!receipt) throw new CheckoutPageNotFound('receipt');
    return receipt;
  }
}
