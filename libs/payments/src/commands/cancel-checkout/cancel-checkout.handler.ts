import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { CancelCheckoutCommand } from './cancel-checkout.command';

/** Cancels a checkout: visible to the caller, then decide (checkout_not_cancelable; again: nothing), append, settle (the payment records the end), wait. */
@CommandHandler(CancelCheckoutCommand)
export class CancelCheckoutHandler implements ICommandHandler<CancelCheckoutCommand, void> {
  constructor(private readonly steps: PaymentUseCaseSteps) {}

  async execute({ checkoutId, actingFor, meta }: CancelCheckoutCommand): Promise<void> {
    await this.steps.onVisibleCheckout(checkoutId, actingFor, { type: 'CancelCheckout' }, meta);
  }
}
