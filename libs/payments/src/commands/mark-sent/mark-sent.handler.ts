import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { simulatedSenderAddress, simulatedTxHash } from '../../app/simulated-chain';
import { OpenCheckoutState } from '../../domain/checkout.decider';
import { PaymentDomainError } from '../../domain/errors';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { MarkSentCommand } from './mark-sent.command';

/**
 * Marks a simulated transfer sent (decision 0009): visible to the caller, a fresh transaction
 * hash for the checkout's network, then the checkout decides (simulated businesses only,
 * wrong_rail, checkout_canceled, checkout_failed, checkout_expired unless `late`; confirming:
 * nothing), append, settle (the payment records the transfer; the confirmation timers are set), wait.
 */
@CommandHandler(MarkSentCommand)
export class MarkSentHandler implements ICommandHandler<MarkSentCommand, void> {
  constructor(private readonly steps: PaymentUseCaseSteps) {}

  async execute({ checkoutId, simulate, actingFor, meta }: MarkSentCommand): Promise<void> {
    const markSent = (checkout: OpenCheckoutState) => {
      if (checkout.rail !== 'crypto') throw new PaymentDomainError('wrong_rail', 'Simulated transfers are for crypto checkouts.');
      const txHash = simulatedTxHash(checkout.network); // a checkout's network never changes
      return { type: 'MarkSent' as const, simulate, txHash, fromAddress: simulatedSenderAddress(checkout.network, txHash) };
    };
    await this.steps.onVisibleCheckout(checkoutId, actingFor, markSent, meta);
  }
}
