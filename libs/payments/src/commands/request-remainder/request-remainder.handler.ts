import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner, metadataFor } from '@lib/eventstore';
import { newId } from '@lib/http';
import { PaymentAccess, assertActive } from '../../app/access';
import { BusinessClock } from '../../app/business-clock';
import { later } from '../../app/positions';
import { PaymentsProcessManager } from '../../app/process-manager';
import { PaymentStreams } from '../../app/streams';
import { RequestRemainderCommand } from './request-remainder.command';

/**
 * Requests a remainder (spec §4, decision 0009): an active business, its own payment, then the
 * payment decides (payment_not_underpaid, remainder_unavailable, nothing_due; while its remainder
 * checkout is open: that one again), append, and the process manager opens the checkout
 * (PaymentRemainderRequested → OpenCheckout) before the read models are waited for.
 */
@CommandHandler(RequestRemainderCommand)
export class RequestRemainderHandler implements ICommandHandler<RequestRemainderCommand, { checkoutId: string }> {
  constructor(
    private readonly access: PaymentAccess,
    private readonly streams: PaymentStreams,
    private readonly process: PaymentsProcessManager,
    private readonly clock: BusinessClock,
    private readonly runner: CommandRunner,
  ) {}

  async execute({ business, paymentId, meta }: RequestRemainderCommand): Promise<{ checkoutId: string }> {
    assertActive(business);
    await this.access.ownedPayment(business, paymentId);
    const command = { type: 'RequestRemainder' as const, checkoutId: newId('chk'), hasCheckoutPage: true };
    const decided = await this.streams.decidePayment(paymentId, command, { now: await this.clock.now(business.id), metadata: metadataFor(meta) });
    const settled = await this.process.settle(decided.appended);
    const state = decided.state;
    const checkoutId = state.status === 'none' ? null : state.remainderCheckoutId;
    if (!checkoutId) throw new Error(`payment ${paymentId}: no remainder checkout after RequestRemainder`);
    // the checkout the answer shows, when it was opened earlier (the same request again)
    await this.runner.waitFor(later(later(decided.head, settled.position), await this.streams.head('checkout', checkoutId)));
    return { checkoutId };
  }
}
