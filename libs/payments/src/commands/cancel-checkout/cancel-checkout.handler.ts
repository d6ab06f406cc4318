import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, metadataFor } from '@lib/eventstore';
import { PaymentAccess } from '../../app/access';
import { BusinessClock } from '../../app/business-clock';
import { later } from '../../app/positions';
import { PaymentsProcessManager } from '../../app/process-manager';
import { PaymentStreams } from '../../app/streams';
import { CancelCheckoutCommand } from './cancel-checkout.command';

/** Cancels a checkout: visible to the caller, then decide (checkout_not_cancelable; again: nothing), append, settle (the payment records the end), wait. */
@CommandHandler(CancelCheckoutCommand)
export class CancelCheckoutHandler implements ICommandHandler<CancelCheckoutCommand, void> {
  constructor(
    private readonly access: PaymentAccess,
    private readonly streams: PaymentStreams,
    private readonly process: PaymentsProcessManager,
    private readonly clock: BusinessClock,
    private readonly runner: CommandRunner,
  ) {}

  async execute({ checkoutId, actingFor, meta }: CancelCheckoutCommand): Promise<void> {
    const checkout = await this.access.visibleCheckout(checkoutId, actingFor);
    const now = await this.clock.now(checkout.state.businessId ?? undefined);
    const decided = await this.streams.decideCheckout(checkoutId, { type: 'CancelCheckout' }, { now, metadata: metadataFor(meta) });
    const settled = await this.process.settle(decided.appended);
    await this.runner.waitFor(later(decided.head, settled.position));
  }
}
