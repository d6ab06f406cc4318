import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { isValidEmail } from '../../app/customers';
import { OpenCheckoutState } from '../../domain/checkout.decider';
import { PaymentDomainError } from '../../domain/errors';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { ClaimCheckoutCommand } from './claim-checkout.command';

/**
 * Claims a checkout (decision 0009): visible to the caller, the e-mail address, then what the
 * payment says (succeeded: payment_paid; a claim of another hash under review: already_claimed)
 * goes into the command, the checkout decides (checkout_not_claimable, invalid_tx_hash; the same
 * hash again: nothing), append, settle (the payment goes to needs_review), wait.
 */
@CommandHandler(ClaimCheckoutCommand)
export class ClaimCheckoutHandler implements ICommandHandler<ClaimCheckoutCommand, void> {
  constructor(private readonly steps: PaymentUseCaseSteps) {}

  async execute({ checkoutId, input, actingFor, meta }: ClaimCheckoutCommand): Promise<void> {
    const claim = async (checkout: OpenCheckoutState) => {
      if (input.email !== undefined && !isValidEmail(input.email)) throw new PaymentDomainError('invalid_email', 'email is not a valid e-mail address.', 'email');
      const payment = await this.steps.streams.payment(checkout.paymentId);
      const paymentSucceeded = payment.status === 'succeeded';
      const paymentClaimTxHash = payment.status === 'needs_review' ? payment.claimTxHash : null;
      return { type: 'ClaimCheckout' as const, txHash: input.tx_hash, email: input.email ?? null, paymentSucceeded, paymentClaimTxHash };
    };
    await this.steps.onVisibleCheckout(checkoutId, actingFor, claim, meta);
  }
}
