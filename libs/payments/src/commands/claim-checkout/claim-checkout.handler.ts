import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, metadataFor } from '@lib/eventstore';
import { PaymentAccess } from '../../app/access';
import { BusinessClock } from '../../app/business-clock';
import { isValidEmail } from '../../app/customers';
import { later } from '../../app/positions';
import { PaymentsProcessManager } from '../../app/process-manager';
import { PaymentStreams } from '../../app/streams';
import { PaymentDomainError } from '../../domain/errors';
import { ClaimCheckoutCommand } from './claim-checkout.command';

/**
 * Claims a checkout (decision 0009): visible to the caller, the e-mail address, then what the
 * payment says (succeeded: payment_paid; a claim of another hash under review: already_claimed)
 * goes into the command, the checkout decides (checkout_not_claimable, invalid_tx_hash; the same
 * hash again: nothing), append, settle (the payment goes to needs_review), wait.
 */
@CommandHandler(ClaimCheckoutCommand)
export class ClaimCheckoutHandler implements ICommandHandler<ClaimCheckoutCommand, void> {
  constructor(
    private readonly access: PaymentAccess,
    private readonly streams: PaymentStreams,
    private readonly process: PaymentsProcessManager,
    private readonly clock: BusinessClock,
    private readonly runner: CommandRunner,
  ) {}

  async execute({ checkoutId, input, actingFor, meta }: ClaimCheckoutCommand): Promise<void> {
    const checkout = await this.access.visibleCheckout(checkoutId, actingFor);
    if (input.email !== undefined && !isValidEmail(input.email)) throw new PaymentDomainError('invalid_email', 'email is not a valid e-mail address.', 'email');
    const payment = await this.streams.payment(checkout.state.paymentId);
    const paymentSucceeded = payment.status === 'succeeded';
    const paymentClaimTxHash = payment.status === 'needs_review' ? payment.claimTxHash : null;
    const now = await this.clock.now(checkout.state.businessId ?? undefined);
    const command = { type: 'ClaimCheckout' as const, txHash: input.tx_hash, email: input.email ?? null, paymentSucceeded, paymentClaimTxHash };
    const decided = await this.streams.decideCheckout(checkoutId, command, { now, metadata: metadataFor(meta) });
    const settled = await this.process.settle(decided.appended);
    await this.runner.waitFor(later(decided.head, settled.position));
  }
}
