import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { metadataFor } from '@lib/eventstore';
import { newId } from '@lib/http';
import { assertActive } from '../../app/access';
import { later } from '../../app/positions';
import { PaymentRates } from '../../app/rates';
import { LivePaymentState, RequestRemainder } from '../../domain/payment.decider';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { RequestRemainderCommand } from './request-remainder.command';

/**
 * Requests a remainder (spec §4, decisions 0009, 0020): an active business, its own payment; when
 * a new remainder checkout is due (underpaid, none open, the quote ended), the rate now from the
 * business's source — read before anything is appended, so a source that cannot be reached
 * answers 503 upstream_unavailable with nothing changed and the same Idempotency-Key can be
 * retried. Then the payment decides (payment_not_underpaid, remainder_unavailable, nothing_due;
 * while its remainder checkout is open: that one again), append, and the process manager opens
 * the checkout (PaymentRemainderRequested, which carries the rate → OpenCheckout) before the read
 * models are waited for.
 */
@CommandHandler(RequestRemainderCommand)
export class RequestRemainderHandler implements ICommandHandler<RequestRemainderCommand, { checkoutId: string }> {
  constructor(
    private readonly steps: PaymentUseCaseSteps,
    private readonly rates: PaymentRates,
  ) {}

  async execute({ business, paymentId, meta }: RequestRemainderCommand): Promise<{ checkoutId: string }> {
    assertActive(business);
    const owned = await this.steps.access.ownedPayment(business, paymentId);
    const now = await this.steps.clock.now(business.id);
    const command: RequestRemainder = { type: 'RequestRemainder', checkoutId: newId('chk'), hasCheckoutPage: true };
    if (opensRemainder(owned.state, now)) {
      const quote = await this.rates.forRemainder(business, owned.state.method!.asset, owned.state.currency);
      command.rate = { rateMinorPerCoin: quote.rateMinorPerCoin, source: quote.source, at: quote.at };
    }
    const decided = await this.steps.streams.decidePayment(paymentId, command, { now, metadata: metadataFor(meta) });
    const settledAt = await this.steps.settle(decided);
    const state = decided.state;
    const checkoutId = state.status === 'none' ? null : state.remainderCheckoutId;
    if (!checkoutId) throw new Error(`payment ${paymentId}: no remainder checkout after RequestRemainder`);
    // the checkout the answer shows, when it was opened earlier (the same request again)
    await this.steps.waitFor(later(settledAt, await this.steps.streams.head('checkout', checkoutId)));
    return { checkoutId };
  }
}

/**
 * Whether the decider would open a new remainder checkout (so a rate is needed): underpaid, no
 * remainder checkout open, the quote ended. Otherwise it refuses or returns the open one, and no
 * source is asked (a live quote answers 409 remainder_unavailable, not a 503).
 */
function opensRemainder(state: LivePaymentState, now: Date): boolean {
  if (state.status !== 'underpaid' || state.remainderCheckoutId !== null || state.method === null) return false;
  return state.quoteEndsAt === null || now.getTime() >= Date.parse(state.quoteEndsAt);
}
