import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { CommandRunner } from '@lib/eventstore';
import { findBusiness } from '@lib/businesses';
import { PaymentsReadModel } from '@lib/payments';
import { PageCodes } from '../../page-codes';
import { CheckoutPageNotFound, PAYMENT_CODE } from '../../page-model';
import { GetPageReceiptQuery, PageReceipt } from './get-page-receipt.query';

/**
 * The public receipt of the payment a page code names (a link's: of the checkout `?s=` names): the
 * same object GET /public/receipts/{id} answers, and whether the business is simulated.
 */
@QueryHandler(GetPageReceiptQuery)
export class GetPageReceiptHandler implements IQueryHandler<GetPageReceiptQuery, PageReceipt> {
  constructor(
    private readonly read: PaymentsReadModel,
    private readonly codes: PageCodes,
    private readonly runner: CommandRunner,
    @Inject(DATABASE) private readonly db: Sql,
  ) {}

  async execute({ code, checkoutId }: GetPageReceiptQuery): Promise<PageReceipt> {
    if (!PAYMENT_CODE.test(code)) throw new CheckoutPageNotFound('receipt');
    if (this.runner.hasUnseenWrites(null)) await this.runner.readBarrier(null);
    const subject = await this.codes.subject(code);
    // a link's page has a receipt per payment it made: the one of the checkout `?s=` names
    const paymentId = subject?.kind === 'payment' ? subject.payment.id : subject ? (await this.codes.checkout(subject, checkoutId))?.payment.id : undefined;
    const receipt = paymentId ? await this.read.getReceipt(paymentId) : null;
    if (!receipt || !subject) throw new CheckoutPageNotFound('receipt');
    const business = await findBusiness(this.db, subject.businessId);
    return { receipt, simulated: business?.simulated ?? false };
  }
}
