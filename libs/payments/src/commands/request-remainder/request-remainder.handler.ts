import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { metadataFor } from '@lib/eventstore';
import { newId } from '@lib/http';
import { assertActive } from '../../app/access';
import { later } from '../../app/positions';
import { WalletAddresses } from '@lib/wallets';
import { ServicePauses } from '@lib/operations';
import { LINK_GATE, LinkGate } from '../../app/links';
import { PaymentRates } from '../../app/rates';
import { RequestRemainder, decidePayment } from '../../domain/payment.decider';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { RequestRemainderCommand } from './request-remainder.command';

/** The remainder checkout, and the page of a link's payment (a payment's own page is its `url`). */
export interface RemainderRequested {
  checkoutId: string;
  linkPageUrl: string | null;
}

/**
 * Requests a remainder (spec §4, decisions 0009, 0020): an active business, its own payment; when
 * a new remainder checkout is due (underpaid, none open, the quote ended), the rate now from the
 * business's source — read before anything is appended, so a source that cannot be reached
 * answers 503 upstream_unavailable with nothing changed and the same Idempotency-Key can be
 * retried. A link's payment whose link is no longer active has no checkout page (decision 0030).
 * Then the payment decides (payment_not_underpaid, remainder_unavailable, nothing_due — also
 * while a transfer is confirming: nothing_due when it covers what is left, remainder_unavailable
 * when it leaves part of it; while its remainder checkout is open: that one again), append, and
 * the process manager opens
 * the checkout (PaymentRemainderRequested, which carries the rate → OpenCheckout) before the read
 * models are waited for.
 */
@CommandHandler(RequestRemainderCommand)
export class RequestRemainderHandler implements ICommandHandler<RequestRemainderCommand, RemainderRequested> {
  constructor(
    private readonly steps: PaymentUseCaseSteps,
    private readonly wallets: WalletAddresses,
    private readonly pauses: ServicePauses,
    private readonly rates: PaymentRates,
    @Inject(LINK_GATE) private readonly links: LinkGate,
  ) {}

  async execute({ business, paymentId, meta }: RequestRemainderCommand): Promise<RemainderRequested> {
    assertActive(business);
    const owned = await this.steps.access.ownedPayment(business, paymentId);
    const now = await this.steps.clock.now(business.id);
    const command: RequestRemainder = { type: 'RequestRemainder', checkoutId: newId('chk'), hasCheckoutPage: await this.hasCheckoutPage(owned.state.linkId) };
    // the payment's refusals first (payment_not_underpaid, remainder_unavailable, nothing_due); then, when a
    // remainder checkout is to be opened: the operator's pauses (503 temporarily_unavailable), today's rate
    // (503 upstream_unavailable when the source cannot be reached: the same key may be retried), and a fresh
    // address in the business's wallet (409 not_accepting without a wallet that receives there)
    const method = owned.state.method;
    if (method !== null && decidePayment(command, owned.state, { now }).length > 0) {
      await this.pauses.check('checkouts', `network:${method.network}`);
      const quote = await this.rates.forRemainder(business, method.asset, owned.state.currency);
      command.rate = { rateMinorPerCoin: quote.rateMinorPerCoin, source: quote.source, at: quote.at };
      command.reserved = await this.wallets.reserve(business.id, method.network);
    }
    const decided = await this.steps.streams.decidePayment(paymentId, command, { now, metadata: metadataFor(meta) });
    const settledAt = await this.steps.settle(decided);
    const state = decided.state;
    const checkoutId = state.status === 'none' ? null : state.remainderCheckoutId;
    if (!checkoutId) throw new Error(`payment ${paymentId}: no remainder checkout after RequestRemainder`);
    // the checkout the answer shows, when it was opened earlier (the same request again)
    await this.steps.waitFor(later(settledAt, await this.steps.streams.head('checkout', checkoutId)));
    // a link's payment is paid on its link's page (`url` null on the payment itself, decision 0030)
    const linkPageUrl = owned.state.linkId === null ? null : await this.links.pageUrl(owned.state.linkId);
    return { checkoutId, linkPageUrl };
  }

  /**
   * A payment made by a link has a checkout page while its link is active; an archived, disabled
   * or deleted link leaves none (409 remainder_unavailable, issue 19 A9; decision 0030).
   */
  private async hasCheckoutPage(linkId: string | null): Promise<boolean> {
    return linkId === null || (await this.links.hasCheckoutPage(linkId));
  }
}

/**
 * Whether the decider would open a new remainder checkout (so a rate is needed): underpaid, no
 * remainder checkout open, the quote ended. Otherwise it refuses or returns the open one, and no
 * source is asked (a live quote answers 409 remainder_unavailable, not a 503).
 */
