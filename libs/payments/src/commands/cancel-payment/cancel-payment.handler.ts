import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { CancelPaymentCommand } from './cancel-payment.command';

/** Cancels a payment: the business's own payment, then decide (payment_not_cancelable, payment_in_flight; again: nothing), append, settle (its checkouts fail), wait. */
@CommandHandler(CancelPaymentCommand)
export class CancelPaymentHandler implements ICommandHandler<CancelPaymentCommand, void> {
  constructor(private readonly steps: PaymentUseCaseSteps) {}

  async execute({ business, paymentId, meta }: CancelPaymentCommand): Promise<void> {
    await this.steps.onOwnedPayment(business, paymentId, { type: 'CancelPayment' }, meta);
  }
}
