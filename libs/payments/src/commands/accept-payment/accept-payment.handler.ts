import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { AcceptPaymentCommand } from './accept-payment.command';

/** Accepts a payment: the business's own payment, then decide (payment_not_acceptable; again: nothing), append, settle, wait. */
@CommandHandler(AcceptPaymentCommand)
export class AcceptPaymentHandler implements ICommandHandler<AcceptPaymentCommand, void> {
  constructor(private readonly steps: PaymentUseCaseSteps) {}

  async execute({ business, paymentId, meta }: AcceptPaymentCommand): Promise<void> {
    await this.steps.onOwnedPayment(business, paymentId, { type: 'AcceptPayment' }, meta);
  }
}
