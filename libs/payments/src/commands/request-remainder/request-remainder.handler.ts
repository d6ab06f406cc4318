import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { metadataFor } from '@lib/eventstore';
import { newId } from '@lib/http';
import { assertActive } from '../../app/access';
import { later } from '../../app/positions';
import { WalletAddresses } from '@lib/wallets';
import { ServicePauses } from '@lib/operations';
import { decidePayment } from '../../domain/payment.decider';
import { PaymentUseCaseSteps } from '../use-case-steps';
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
    private readonly steps: PaymentUseCaseSteps,
    private readonly wallets: WalletAddresses,
    private readonly pauses: ServicePauses,
  ) {}

  async execute({ business, paymentId, meta }: RequestRemainderCommand): Promise<{ checkoutId: string }> {
    assertActive(business);
    await this.steps.access.ownedPayment(business, paymentId);
    const now = await this.steps.clock.now(business.id);
    const command = { type: 'RequestRemainder' as const, checkoutId: newId('chk'), hasCheckoutPage: true };
    // the payment's refusals first; then, when a remainder checkout is to be opened, a fresh address for it (409 not_accepting without a wallet that receives there)
    const payment = await this.steps.streams.payment(paymentId);
    const opens = payment.status !== 'none' && decidePayment(command, payment, { now }).length > 0;
    // a remainder opens a checkout: not while the operator paused new checkouts or the network (503 temporarily_unavailable)
    if (opens && payment.method) await this.pauses.check('checkouts', `network:${payment.method.network}`);
    const reserved = opens && payment.method ? await this.wallets.reserve(business.id, payment.method.network) : undefined;
    const decided = await this.steps.streams.decidePayment(paymentId, { ...command, reserved }, { now, metadata: metadataFor(meta) });
    const settledAt = await this.steps.settle(decided);
    const state = decided.state;
    const checkoutId = state.status === 'none' ? null : state.remainderCheckoutId;
    if (!checkoutId) throw new Error(`payment ${paymentId}: no remainder checkout after RequestRemainder`);
    // the checkout the answer shows, when it was opened earlier (the same request again)
    await this.steps.waitFor(later(settledAt, await this.steps.streams.head('checkout', checkoutId)));
    return { checkoutId };
  }
}
