import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CardProcessorUnavailable, CardRoutes } from '@lib/cards';
import { APP_CONFIG, AppConfig } from '@lib/core';
import { SYSTEM_ACTOR } from '@lib/eventstore';
import { newId } from '@lib/http';
import { ServicePauses } from '@lib/operations';
import { CardAttempts } from '../../app/card-attempts';
import { actingAsCustomer } from '../../app/customers';
import { LINK_GATE, LinkGate } from '../../app/links';
import { CardAttemptState, CardCheckoutState, OpenCheckoutState, StartCardAttempt, decideCheckout, pendingCardAttempt } from '../../domain/checkout.decider';
import { PaymentDomainError } from '../../domain/errors';
import { PaymentState, inFlight } from '../../domain/payment.decider';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { StartCardAttemptCommand } from './start-card-attempt.command';

/**
 * Starts a card attempt (decision 0026), in order: the checkout visible to the caller
 * (not_found), a card checkout (wrong_rail), card payments not paused (503
 * temporarily_unavailable); an attempt past its end the timer has not ended yet is ended first
 * (its processor's result, else timed out); the payment still pending (else
 * checkout_not_awaiting), no crypto transfer on its way (payment_in_flight); the decider's rules on a dry run (checkout_not_awaiting, stale_route,
 * route_in_progress, checkout_not_retryable, no_route); no card attempt that may still go through
 * on another checkout of the payment (route_in_progress; card audit, 2026-11-28); then the next route's processor creates
 * the attempt and its secure page (unreachable: 503 upstream_unavailable, nothing recorded);
 * decide, append, settle (the attempt's expiry timer), wait.
 */
@CommandHandler(StartCardAttemptCommand)
export class StartCardAttemptHandler implements ICommandHandler<StartCardAttemptCommand, void> {
  constructor(
    private readonly steps: PaymentUseCaseSteps,
    private readonly routes: CardRoutes,
    private readonly attempts: CardAttempts,
    private readonly pauses: ServicePauses,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LINK_GATE) private readonly links: LinkGate,
  ) {}

  async execute({ checkoutId, input, actingFor, serviceOrigin, meta }: StartCardAttemptCommand): Promise<void> {
    let checkout = (await this.steps.access.visibleCheckout(checkoutId, actingFor)).state;
    let card = cardCheckout(checkout);
    await this.pauses.check('card_payments');
    const now = await this.steps.clock.now(card.businessId ?? undefined);
    const pending = pendingCardAttempt(card);
    if (pending && now.getTime() >= Date.parse(pending.expiresAt)) {
      await this.attempts.expire(checkoutId, pending.id, { now, eventId: undefined, metadata: { causationId: `card:expiry:${pending.id}`, actor: SYSTEM_ACTOR } });
      checkout = (await this.steps.access.visibleCheckout(checkoutId, actingFor)).state;
      card = cardCheckout(checkout);
    }
    // another checkout's attempt past its end is ended first too (its result may decide the payment), so the payment is read after
    const elsewhere = await this.attemptInProgressElsewhere(card, now);
    const payment = await this.steps.streams.payment(card.paymentId);
    if (payment.status !== 'pending' && (card.status === 'open' || card.status === 'awaiting_customer' || card.status === 'failed')) {
      throw new PaymentDomainError('checkout_not_awaiting', `The payment is ${payment.status}: this checkout no longer waits for a card payment.`);
    }
    // a crypto transfer on its way decides the payment (decision 0009): charging a card too would take the money twice
    if (payment.status === 'pending' && inFlight(payment)) throw new PaymentDomainError('payment_in_flight', 'A transfer to this payment is on its way: wait for it before paying by card.');
    const attemptId = newId('att');
    const route = card.attempts.length + 1;
    const processorName = card.routes[route - 1] ?? '';
    const expiresAt = new Date(now.getTime() + card.attemptTtlMs).toISOString();
    const draft: StartCardAttempt = { type: 'StartCardAttempt', attemptId, route: input.route, processor: processorName, ref: '', secureUrl: '', expiresAt };
    decideCheckout(draft, card, { now }); // the rules before the processor is asked
    if (elsewhere) {
      throw new PaymentDomainError('route_in_progress', `The customer's card payment on another checkout of this payment may still go through on its secure page (until ${elsewhere.expiresAt}): finish it there, or cancel that checkout.`);
    }

    const returnUrl = `${await this.pageOf(payment)}?s=${encodeURIComponent(checkoutId)}&attempt=${encodeURIComponent(attemptId)}`;
    let created;
    try {
      created = await this.routes.processor(processorName).createAttempt({
        attemptId,
        checkoutId,
        businessId: card.businessId ?? '',
        amountMinor: card.total,
        currency: card.currency,
        email: card.email,
        returnUrl,
        expiresAt,
        serviceOrigin,
      });
    } catch (error) {
      if (error instanceof CardProcessorUnavailable) throw new PaymentDomainError('upstream_unavailable', 'The card processor cannot be reached: nothing was started. Retry with the same Idempotency-Key.');
      throw error;
    }
    await this.steps.decideCheckout(checkoutId, { ...draft, ref: created.ref, secureUrl: created.secureUrl }, now, actingAsCustomer(meta, payment.status === 'none' ? null : payment.details.customer_id));
  }

  /**
   * A card attempt that may still go through on another checkout of the payment (card audit,
   * 2026-11-28): its secure page is live, and a second charge there would take the money twice
   * — the later charge completes its own checkout while the payment, paid already, only records
   * it. A checkout the customer canceled is not waited for: §3 lets the payment be retried, and
   * a charge on its page goes to the business's review (paid_after_cancel). An attempt past its
   * end that its timer has not ended yet is ended first, as the checkout's own is.
   */
  private async attemptInProgressElsewhere(card: CardCheckoutState, now: Date): Promise<CardAttemptState | null> {
    const payment = await this.steps.streams.payment(card.paymentId);
    if (payment.status === 'none') return null;
    for (const id of Object.keys(payment.checkouts)) {
      if (id === card.id) continue;
      let other = await this.steps.streams.checkout(id);
      if (other.status === 'none' || other.rail !== 'card' || other.status === 'canceled') continue;
      let pending = pendingCardAttempt(other);
      if (pending && now.getTime() >= Date.parse(pending.expiresAt)) {
        await this.attempts.expire(id, pending.id, { now, eventId: undefined, metadata: { causationId: `card:expiry:${pending.id}`, actor: SYSTEM_ACTOR } });
        other = await this.steps.streams.checkout(id);
        pending = other.status !== 'none' && other.rail === 'card' ? pendingCardAttempt(other) : null;
      }
      if (pending) return pending;
    }
    return null;
  }

  /** The page the customer comes back to from the processor: the payment's own, or its link's (a link payment has no page of its own, decision 0030). */
  private async pageOf(payment: PaymentState): Promise<string> {
    if (payment.status !== 'none' && payment.linkId !== null) {
      const linkPage = await this.links.pageUrl(payment.linkId);
      if (linkPage !== null) return linkPage;
    }
    const code = payment.status === 'none' ? '' : (payment.details.code ?? '');
    return `${this.config.checkoutBaseUrl}/${encodeURIComponent(code)}`;
  }
}

/** The checkout as a card checkout, or 409 wrong_rail. */
export function cardCheckout(checkout: OpenCheckoutState): CardCheckoutState {
  if (checkout.rail !== 'card') throw new PaymentDomainError('wrong_rail', 'This is a crypto checkout: card attempts are for card checkouts.');
  return checkout;
}

