import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AssetCode, NetworkId, defaultRegistry } from '@lib/chains';
import { idFromSeed, newId } from '@lib/http';
import { WriteMeta } from '@lib/eventstore';
import { assertActive } from '../../app/access';
import { CardRoutes } from '@lib/cards';
import { CARD_ATTEMPT_TTL_MS } from '../../app/card-attempts';
import { CUSTOMER_GATE, CustomerGate, actingAsCustomer, isValidEmail } from '../../app/customers';
import { PaymentRates } from '../../app/rates';
import { PAYMENTS_SETTINGS, PaymentsSettings } from '../../app/settings';
import { WalletAddresses, notWatchedReason } from '@lib/wallets';
import { ServicePauses } from '@lib/operations';
import { OpenCardCheckout, OpenCheckoutState, OpenCryptoCheckout, decideCheckout, initialCheckoutState } from '../../domain/checkout.decider';
import { DEFAULT_CHECKOUT_RULES, assertAssetAccepted, assertEmailGiven, assertRailAccepted } from '../../domain/checkout-rules';
import { PaymentDomainError } from '../../domain/errors';
import { decidePayment } from '../../domain/payment.decider';
import { seededEventIds } from '../../domain/checkout-to-payment';
import { PaymentUseCaseSteps } from '../use-case-steps';
import { LinkPayments, ResolvedLinkPayment } from './link-payments';
import { OpenCheckoutCommand } from './open-checkout.command';

/** The payment a code names: a payment's, or a link's (maybe new and not written yet). */
type ResolvedPayment = Pick<ResolvedLinkPayment, 'paymentId' | 'business' | 'input' | 'unwritten'>;

/** §8: the same choice returns the same quote while more than two minutes of it are left. */
const REMAINDER_REUSE_MS = 2 * 60_000;

/**
 * Opens a checkout (spec §4, decisions 0009, 0011). The request's shape is checked by
 * OpenCheckoutRequest; here, in order: the link or payment code and its business (active; a
 * suspended one only gets the quote `replaces` names back, below — 0016 addendum), the
 * rail, asset and network the business can take, the e-mail address, simulate only on a
 * simulated business; the payment's own refusals (payment_paid, payment_canceled,
 * payment_expired, payment_in_flight) before anything is opened — except `replaces` naming the
 * quote the payment's money went to with the same choice (confirming, or awaiting the rest with
 * more than two minutes left): that checkout; `replaces` (the same choice while its quote has more
 * than two minutes: that checkout); then decide, append, settle (the
 * payment records the method; older quotes are set aside) and wait. A card checkout: openCard.
 */
@CommandHandler(OpenCheckoutCommand)
export class OpenCheckoutHandler implements ICommandHandler<OpenCheckoutCommand, { checkoutId: string; businessId: string }> {
  constructor(
    private readonly steps: PaymentUseCaseSteps,
    private readonly rates: PaymentRates,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
    private readonly wallets: WalletAddresses,
    private readonly pauses: ServicePauses,
    private readonly cards: CardRoutes,
    @Inject(CUSTOMER_GATE) private readonly customers: CustomerGate,
    private readonly linkPayments: LinkPayments,
  ) {}

  async execute({ input, caller, meta }: OpenCheckoutCommand): Promise<{ checkoutId: string; businessId: string }> {
    // under an Idempotency-Key the checkout's id comes from the request: a run after one that died
    // between its append and its kept response answers that checkout instead of opening a second
    const earlier = await this.openedEarlier(meta);
    if (earlier !== null) return earlier;
    // 1. the rules that need the payment, its business or the registry
    if (input.link_code !== undefined && input.payment_code !== undefined) throw new PaymentDomainError('invalid_request', 'Send payment_code or link_code, not both.', 'link_code');
    if (input.payment_code === undefined && input.link_code === undefined) throw new PaymentDomainError('invalid_request', 'Send payment_code (or link_code).', 'payment_code');
    // a link's code (decision 0030): resolved to the link's payment (made now, or carried over), then the path of a payment's code
    const resolved: ResolvedPayment = input.link_code !== undefined ? await this.linkPayments.resolve(input, input.link_code, caller, meta) : { ...(await this.steps.access.paymentByCode(input.payment_code!, caller)), input };
    const { paymentId, business } = resolved;
    input = resolved.input;
    // §7: a suspended business opens no checkout, but its open checkouts can finish: `replaces` with
    // the same choice opens nothing — it answers the quote it names — so that request goes on to
    // where it is answered, and is refused (403 business_suspended) wherever it would open one
    // (0016 addendum, 2026-11-29; api audit L4). Without `replaces`, on the card rail (which
    // answers no earlier checkout) or for a link's new payment, it is refused here, as before.
    if ((input.rail ?? 'crypto') !== 'crypto' || input.replaces === undefined || resolved.unwritten !== undefined) assertActive(business);
    // what the operator paused for everyone: 503 temporarily_unavailable (issue 19 B14)
    await this.pauses.check('checkouts', ...((input.rail ?? 'crypto') === 'card' ? (['card_payments'] as const) : []), ...(input.network !== undefined ? ([`network:${input.network}`] as `network:${NetworkId}`[]) : []));
    // the business's checkout settings (decision 0028): the rails and coins it accepts
    const rules = business.checkout ?? DEFAULT_CHECKOUT_RULES;
    assertRailAccepted(rules, input.rail ?? 'crypto');
    if ((input.rail ?? 'crypto') === 'card') return this.openCard(input, resolved, meta);
    if (input.asset === undefined) throw new PaymentDomainError('invalid_request', 'asset is required for a crypto checkout.', 'asset');
    if (input.network === undefined) throw new PaymentDomainError('invalid_request', 'network is required for a crypto checkout.', 'network');
    const asset = input.asset as AssetCode; // one of ASSET_CODES (OpenCheckoutRequest)
    const network = input.network as NetworkId; // one of NETWORK_IDS (OpenCheckoutRequest)
    assertAssetAccepted(rules, asset, network);
    if (input.email !== undefined && !isValidEmail(input.email)) throw new PaymentDomainError('invalid_email', 'email is not a valid e-mail address.', 'email');
    if (input.simulate !== undefined && !business.simulated) throw new PaymentDomainError('invalid_request', 'simulate is for simulated businesses only.', 'simulate');
    // a live business takes real transfers only on networks a chain watcher watches (a node is configured)
    if (!business.simulated && !this.settings.liveNetworks.includes(network)) throw new PaymentDomainError('not_accepting', notWatchedReason(network), 'network');
    // a network whose token contracts the deployment names is watched for those tokens only (and its native coin)
    const namedTokens = this.settings.liveTokens?.[network];
    // (a coin the network does not carry at all is the payment decider's 400 asset_unavailable below, not this lookup's throw: chain audit L2)
    if (!business.simulated && namedTokens && (defaultRegistry.findAssetOn(asset, network)?.contract ?? null) !== null && !namedTokens[asset]) {
      throw new PaymentDomainError('asset_unavailable', `This service watches ${Object.keys(namedTokens).join(', ')} on ${network}, not ${asset}: live payments in it are not taken there.`, 'asset');
    }

    // 2. load the payment (a link's new one as it will be created), and check its refusals before a checkout is opened for it
    const payment = resolved.unwritten?.state ?? (await this.steps.streams.payment(paymentId));
    if (payment.status === 'none') throw new PaymentDomainError('payment_not_found', 'No payment with this code.', 'payment_code');
    assertEmailGiven(rules, input.email ?? payment.details.customer_email);
    // a blocked customer's e-mail (the checkout's or the payment's): 403 customer_blocked (decision 0029)
    await this.customers.assertNotBlocked(business.id, [input.email, payment.details.customer_email], 'email');
    const now = await this.steps.clock.nowOf(business); // its offset was read with the business
    // the business's source (fixed table or live, decision 0020): asset_unavailable, or 503 temporarily_unavailable without a fresh rate
    const quote = await this.rates.forCheckout(business, asset, payment.currency);
    const rate = quote.rateMinorPerCoin;
    const checkoutId = checkoutIdFor(meta);
    // payment_paid, payment_canceled, payment_expired, in flight, asset_unavailable: only a payment that can take a checkout gets one
    try {
      decidePayment({ type: 'SelectMethod', checkoutId, rail: 'crypto', asset, network, rateMinorPerCoin: rate, quoteEndsAt: now.toISOString() }, payment, { now });
    } catch (error) {
      // a transfer on its way (409 payment_in_flight), or funds that reached the payment (409 payment_paid):
      // `replaces` with the same choice naming the quote that money went to — confirming it, or awaiting
      // the rest of a short transfer with more than two minutes left — is answered as it is, so the page
      // follows it (§4: the same choice returns the same quote; outside audits, 2026-11-29)
      const code = error instanceof PaymentDomainError ? error.code : null;
      const following = (code === 'payment_in_flight' || code === 'payment_paid') && input.replaces !== undefined ? await this.steps.streams.loadCheckout(input.replaces) : null;
      const state = following?.state ?? initialCheckoutState;
      const paidHere = state.status === 'confirming' || (code === 'payment_paid' && state.status === 'awaiting_customer');
      if (following === null || state.status === 'none' || !paidHere || state.paymentId !== paymentId || !sameQuote(state, asset, network, now)) {
        assertActive(business); // a suspended business: refused as suspended, whatever else refuses the checkout
        throw error;
      }
      await this.steps.waitFor(following.head);
      return { checkoutId: state.id, businessId: business.id };
    }

    let replaces: string | null = null;
    if (input.replaces !== undefined) {
      const replaced = await this.steps.streams.loadCheckout(input.replaces);
      if (replaced.state.status === 'none' || replaced.state.paymentId !== paymentId) {
        assertActive(business);
        throw new PaymentDomainError('invalid_request', 'replaces must name a checkout of the same payment.', 'replaces');
      }
      replaces = replaced.state.id;
      if (replaced.state.status === 'open' && sameQuote(replaced.state, asset, network, now)) {
        // the same quote and address: answered as it is, once the read models have it
        await this.steps.waitFor(replaced.head);
        return { checkoutId: replaced.state.id, businessId: business.id };
      }
    }

    // a new checkout from here: not for a suspended business (§7)
    assertActive(business);
    // a fresh address in the business's wallet (§1); no wallet, or none on this network: 409 not_accepting
    const reserved = await this.wallets.reserve(business.id, network);

    // 3. decide and append (CommandRunner), 4. settle the consequences, 5. read your writes
    const command: OpenCryptoCheckout = {
      type: 'OpenCheckout',
      checkoutId,
      paymentId,
      linkId: payment.linkId,
      rail: 'crypto',
      simulated: business.simulated,
      asset,
      network,
      address: reserved.address,
      wallet: { walletId: reserved.walletId, index: reserved.index },
      rateMinorPerCoin: rate,
      rateOrigin: { source: quote.source, at: quote.at },
      currency: payment.currency,
      priceMinor: payment.amount,
      feePayer: payment.feePayer,
      feeRateBps: payment.feeRateBps,
      remainder: null,
      quoteTtlMs: this.settings.quoteTtlMs,
      details: {
        business_id: business.id,
        email: input.email ?? payment.details.customer_email ?? null,
        country: input.country ?? null,
        success_url: payment.details.success_url ?? null,
        replaces,
        simulate: input.simulate ?? null,
      },
    };
    // the payment's customer, when it has one, is the actor of what a checkout page opens
    return this.open(resolved, checkoutId, command, now, actingAsCustomer(meta, payment.details.customer_id));
  }

  /**
   * Appends the opening. A link's new payment is written first, once nothing can refuse the
   * checkout any more (the checkout decider's own rules are run dry before it): a refused request
   * leaves no pending link payment without a checkout (decision 0030).
   */
  private async open(resolved: ResolvedPayment, checkoutId: string, command: OpenCryptoCheckout | OpenCardCheckout, now: Date, meta: OpenCheckoutCommand['meta']): Promise<{ checkoutId: string; businessId: string }> {
    if (resolved.unwritten) {
      decideCheckout(command, initialCheckoutState, { now });
      await resolved.unwritten.write();
    }
    await this.steps.decideCheckout(checkoutId, command, now, meta, true, seededEventIds(meta.idempotencySeed));
    return { checkoutId, businessId: resolved.business.id };
  }

  /** The checkout an earlier run of this idempotent request opened (its stream exists), answered once the read models have it. */
  private async openedEarlier(meta: WriteMeta): Promise<{ checkoutId: string; businessId: string } | null> {
    if (meta.idempotencySeed === undefined) return null;
    const loaded = await this.steps.streams.loadCheckout(checkoutIdFor(meta));
    if (loaded.state.status === 'none' || loaded.state.businessId === null) return null;
    await this.steps.waitFor(loaded.head);
    return { checkoutId: loaded.state.id, businessId: loaded.state.businessId };
  }

  /**
   * A card checkout (decision 0026): no coin, network or simulated transfer; an e-mail (sent, or
   * the payment's customer_email) and a country; the routes the business and the country have
   * (rail_unavailable without one); after a replaced card checkout, the routes it has not used.
   * The card price ($5 to $10,000 on the breakdown's total) is the decider's.
   */
  private async openCard(input: OpenCheckoutCommand['input'], resolved: ResolvedPayment, meta: OpenCheckoutCommand['meta']): Promise<{ checkoutId: string; businessId: string }> {
    const { paymentId, business } = resolved;
    for (const field of ['asset', 'network', 'simulate'] as const) {
      if (input[field] !== undefined) throw new PaymentDomainError('invalid_request', `${field} is for crypto checkouts; leave it out of a card checkout.`, field);
    }
    if (input.email !== undefined && !isValidEmail(input.email)) throw new PaymentDomainError('invalid_email', 'email is not a valid e-mail address.', 'email');
    if (input.country === undefined) throw new PaymentDomainError('invalid_request', 'country is required for a card checkout: it decides which card processors can take the card.', 'country');
    const available = this.cards.availability(business, input.country);
    if (!available.available) {
      throw available.reason === 'business'
        ? new PaymentDomainError('rail_unavailable', 'This business does not accept cards.', 'rail')
        : new PaymentDomainError('rail_unavailable', `Cards are not accepted from ${input.country}.`, 'country');
    }
    const payment = resolved.unwritten?.state ?? (await this.steps.streams.payment(paymentId));
    if (payment.status === 'none') throw new PaymentDomainError('payment_not_found', 'No payment with this code.', 'payment_code');
    const email = input.email ?? payment.details.customer_email ?? null;
    if (email === null) throw new PaymentDomainError('email_required', 'A card payment needs the customer’s e-mail.', 'email');
    await this.customers.assertNotBlocked(business.id, [input.email, payment.details.customer_email], 'email');
    const now = await this.steps.clock.nowOf(business);
    const checkoutId = checkoutIdFor(meta);
    // payment_paid, payment_canceled, payment_expired, in flight
    decidePayment({ type: 'SelectCardMethod', checkoutId, quotedMinor: payment.amount, country: input.country }, payment, { now });

    let routes = available.routes;
    let replaces: string | null = null;
    if (input.replaces !== undefined) {
      const replaced = await this.steps.streams.checkout(input.replaces);
      if (replaced.status === 'none' || replaced.paymentId !== paymentId) throw new PaymentDomainError('invalid_request', 'replaces must name a checkout of the same payment.', 'replaces');
      replaces = replaced.id;
      if (replaced.rail === 'card') {
        // continuing after the routes the replaced checkout used (decision 0026)
        const used = new Set(replaced.attempts.map((a) => a.processor));
        routes = routes.filter((r) => replaced.routes.includes(r) && !used.has(r));
        if (routes.length === 0) throw new PaymentDomainError('rail_unavailable', 'Every card route was tried for this payment.', 'rail');
      }
    }
    const command: OpenCardCheckout = {
      type: 'OpenCardCheckout',
      checkoutId,
      paymentId,
      linkId: payment.linkId,
      simulated: business.simulated,
      currency: payment.currency,
      priceMinor: payment.amount,
      feePayer: payment.feePayer,
      feeRateBps: payment.feeRateBps,
      routes,
      attemptTtlMs: CARD_ATTEMPT_TTL_MS,
      details: { business_id: business.id, email, country: input.country, success_url: payment.details.success_url ?? null, replaces },
    };
    // the payment's customer, when it has one, is the actor of what a checkout page opens
    return this.open(resolved, checkoutId, command, now, actingAsCustomer(meta, payment.details.customer_id));
  }
}

/**
 * Whether `replaces` names the quote the same choice returns (§4 `replaces`): a customer's own
 * crypto quote (not a remainder) in the same coin on the same network, with a transfer confirming
 * on it (the quote is held while it confirms) or more than two minutes of its quote left. Which
 * statuses may be answered is the caller's: open, or the quote the payment's money went to.
 */
function sameQuote(state: OpenCheckoutState, asset: AssetCode, network: NetworkId, now: Date): boolean {
  if (state.rail !== 'crypto' || state.remainder || state.asset !== asset || state.network !== network) return false;
  return state.status === 'confirming' || Date.parse(state.expiresAt) - now.getTime() > REMAINDER_REUSE_MS;
}

/** A new checkout's id: derived from the request under an Idempotency-Key (WriteMeta.idempotencySeed), random otherwise. */
function checkoutIdFor(meta: WriteMeta): string {
  return meta.idempotencySeed === undefined ? newId('chk') : idFromSeed('chk', meta.idempotencySeed);
}
