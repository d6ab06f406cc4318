import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { article } from '@lib/domain';
import { CardAttempts } from '../../app/card-attempts';
import { PaymentDomainError } from '../../domain/errors';
import { cardCheckout } from '../start-card-attempt/start-card-attempt.handler';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { ConfirmCardAttemptCommand } from './confirm-card-attempt.command';

/**
 * The customer's return from a secure page (decision 0026): the checkout visible to the caller
 * and the attempt on it (not_found), a card checkout (wrong_rail), the checkout's latest attempt
 * (else stale_route); a result recorded already answers the checkout unchanged; otherwise the
 * processor is asked and what it says is recorded (settled, read back). Still pending: unchanged
 * while the checkout waits for it, else checkout_not_awaiting (canceled or ended, nothing to record).
 */
@CommandHandler(ConfirmCardAttemptCommand)
export class ConfirmCardAttemptHandler implements ICommandHandler<ConfirmCardAttemptCommand, void> {
  constructor(
    private readonly steps: PaymentUseCaseSteps,
    private readonly attempts: CardAttempts,
  ) {}

  async execute({ checkoutId, attemptId, actingFor }: ConfirmCardAttemptCommand): Promise<void> {
    const loaded = await this.steps.access.visibleCheckout(checkoutId, actingFor);
    const card = cardCheckout(loaded.state);
    const attempt = card.attempts.find((a) => a.id === attemptId);
    if (!attempt) throw new PaymentDomainError('not_found', `No card attempt ${attemptId} on checkout ${checkoutId}.`);
    if (card.attempts[card.attempts.length - 1].id !== attempt.id) throw new PaymentDomainError('stale_route', 'This attempt is not the checkout’s current one: the card payment page is out of date.');
    if (attempt.status !== 'pending') {
      await this.steps.waitFor(loaded.head);
      return;
    }
    const now = await this.steps.clock.now(card.businessId ?? undefined);
    const resolved = await this.attempts.resolve(card, attempt, now);
    if (resolved.pending) {
      if (card.status !== 'awaiting_customer') throw new PaymentDomainError('checkout_not_awaiting', `${article(card.status)} ${card.status} checkout is not waiting for a card payment, and the processor has no result for this attempt.`);
      await this.steps.waitFor(loaded.head);
      return;
    }
    await this.steps.waitFor(resolved.position);
  }
}
