import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, metadataFor } from '@lib/eventstore';
import { PaymentAccess } from '../../app/access';
import { BusinessClock } from '../../app/business-clock';
import { later } from '../../app/positions';
import { PaymentsProcessManager } from '../../app/process-manager';
import { simulatedSenderAddress, simulatedTxHash } from '../../app/simulated-chain';
import { PaymentStreams } from '../../app/streams';
import { MarkSentCommand } from './mark-sent.command';

/**
 * Marks a simulated transfer sent (decision 0009): visible to the caller, a fresh transaction
 * hash for the checkout's network, then the checkout decides (simulated businesses only,
 * wrong_rail, checkout_canceled, checkout_failed, checkout_expired unless `late`; confirming:
 * nothing), append, settle (the payment records the transfer; the confirmation timers are set), wait.
 */
@CommandHandler(MarkSentCommand)
export class MarkSentHandler implements ICommandHandler<MarkSentCommand, void> {
  constructor(
    private readonly access: PaymentAccess,
    private readonly streams: PaymentStreams,
    private readonly process: PaymentsProcessManager,
    private readonly clock: BusinessClock,
    private readonly runner: CommandRunner,
  ) {}

  async execute({ checkoutId, simulate, actingFor, meta }: MarkSentCommand): Promise<void> {
    const checkout = await this.access.visibleCheckout(checkoutId, actingFor);
    const now = await this.clock.now(checkout.state.businessId ?? undefined);
    const txHash = simulatedTxHash(checkout.state.network); // a checkout's network never changes
    const command = { type: 'MarkSent' as const, simulate, txHash, fromAddress: simulatedSenderAddress(checkout.state.network, txHash) };
    const decided = await this.streams.decideCheckout(checkoutId, command, { now, metadata: metadataFor(meta) });
    const settled = await this.process.settle(decided.appended);
    await this.runner.waitFor(later(decided.head, settled.position));
  }
}
