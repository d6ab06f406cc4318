import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { SupersedeCheckoutCommand } from './supersede-checkout.command';

/** Supersedes a checkout: visible to the caller, then decide (checkout_not_supersedable; again: nothing), append, settle, wait. */
@CommandHandler(SupersedeCheckoutCommand)
export class SupersedeCheckoutHandler implements ICommandHandler<SupersedeCheckoutCommand, void> {
  constructor(private readonly steps: PaymentUseCaseSteps) {}

  async execute({ checkoutId, actingFor, meta }: SupersedeCheckoutCommand): Promise<void> {
    await this.steps.onVisibleCheckout(checkoutId, actingFor, { type: 'SupersedeCheckout', by: 'customer' }, meta);
  }
}
