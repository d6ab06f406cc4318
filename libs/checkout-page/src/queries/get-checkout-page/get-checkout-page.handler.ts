import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, AppConfig, DATABASE, watchedNetworks } from '@lib/core';
import type { Sql } from '@lib/database';
import { CommandRunner } from '@lib/eventstore';
import { findBusiness, findCheckoutSettings } from '@lib/businesses';
import { CardRoutes } from '@lib/cards';
import { NetworkId, defaultRegistry, isNetworkId } from '@lib/chains';
import { formatCryptoAmount, parseCryptoAmount } from '@lib/money';
import { ServicePauses } from '@lib/operations';
import type { LinkRow } from '@lib/links';
import { BusinessClock, PaymentView, narrowByLink } from '@lib/payments';
import { findWallet } from '@lib/wallets';
import { cardPriceAccepted, payOptions, payRails } from '../../availability';
import { PageCodes } from '../../page-codes';
import { CheckoutPageGone, CheckoutPageModel, CheckoutPageNotFound, PAYMENT_CODE, PagePayment } from '../../page-model';
import { formatMoney } from '../../render/format';
import { GetCheckoutPageQuery } from './get-checkout-page.query';

/** A link's payment states after which its page opens checkouts: pending (carried over), failed (a new payment; decision 0030). */
const OPEN_ON_LINK: readonly string[] = ['pending', 'failed'];

/**
 * The checkout page's model from the read models (decision 0027): the payment or link its code
 * names (PageCodes; after the read barrier, so a payment answered a moment ago is found), its
 * business, the checkout on screen (a link's page: the one `?s=` names, else none yet), the choices POST /checkouts would accept (wallet networks, watched
 * networks for a live business, the operator's pauses, quotable coins) narrowed by the business's
 * checkout settings (decision 0028: rails, pairs, e-mail asked, the name and support address shown),
 * card only when a processor takes the business's cards, the business's clock.
 */
@QueryHandler(GetCheckoutPageQuery)
export class GetCheckoutPageHandler implements IQueryHandler<GetCheckoutPageQuery, CheckoutPageModel> {
  private readonly liveNetworks: NetworkId[];

  constructor(
    private readonly codes: PageCodes,
    @Inject(DATABASE) private readonly db: Sql,
    private readonly runner: CommandRunner,
    private readonly clock: BusinessClock,
    private readonly pauses: ServicePauses,
    private readonly cards: CardRoutes,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.liveNetworks = watchedNetworks(config);
  }

  async execute({ code, checkoutId }: GetCheckoutPageQuery): Promise<CheckoutPageModel> {
    if (!PAYMENT_CODE.test(code)) throw new CheckoutPageNotFound('payment with this code');
    if (this.runner.hasUnseenWrites(null)) await this.runner.readBarrier(null);
    const subject = await this.codes.subject(code);
    if (!subject) throw new CheckoutPageNotFound('payment with this code');
    const business = await findBusiness(this.db, subject.businessId);
    if (!business) throw new CheckoutPageNotFound('payment with this code');

    // the checkout on screen: `?s=` when it is one under this code; a payment's page falls back to its current checkout,
    // a link's (which has no current one) follows its payment to the remainder checkout the business requested since
    let shown = (await this.codes.checkout(subject, checkoutId)) ?? (subject.kind === 'payment' ? await this.codes.checkout(subject, subject.payment.checkout_id) : null);
    // (an ended quote: expired, or canceled by its customer with part of the payment received)
    if (subject.kind === 'link' && shown !== null && (shown.checkout.status === 'expired' || shown.checkout.status === 'canceled') && shown.payment.checkout_id !== shown.checkout.id) {
      const current = await this.codes.checkout(subject, shown.payment.checkout_id);
      if (current?.checkout.remainder) shown = current;
    }
    const payment = shown?.payment ?? (subject.kind === 'payment' ? subject.payment : null);
    const link = subject.kind === 'link' ? subject.link : null;
    // an archived link takes no new payments; a checkout it made can still be followed to its end
    if (link !== null && link.status !== 'active' && shown === null) throw new CheckoutPageGone('This link is no longer taking payments.');

    const [now, pauses, wallet, { settings }] = await Promise.all([this.clock.now(business.id), this.pauses.list(), findWallet(this.db, business.id), findCheckoutSettings(this.db, business.id)]);
    const rules = link === null ? settings : narrowByLink(settings, { rails: link.rails, assets: link.assets, askEmail: link.ask_email });
    const pausedNetworks = new Set(pauses.flatMap((p) => (p.target.startsWith('network:') && isNetworkId(p.target.slice(8)) ? [p.target.slice(8) as NetworkId] : [])));
    const receiving = new Set((wallet?.networks ?? []).filter((n) => n.receiving).map((n) => n.network));
    // a payment's page opens checkouts while it is pending; a link's also after its last payment failed (a new payment)
    const canOpen = business.status === 'active' && (link === null ? payment!.status === 'pending' : link.status === 'active' && (payment === null || OPEN_ON_LINK.includes(payment.status)));
    const checkoutsPaused = pauses.some((p) => p.target === 'checkouts');
    const page = payment !== null ? pagePayment(payment) : linkPagePayment(link!);
    return {
      code,
      source: subject.kind,
      payment: page,
      heading: headingOf(page, link),
      business: { name: settings.display_name ?? business.name, support_email: settings.support_email ?? business.support_email, simulated: business.simulated },
      checkout: shown?.checkout ?? null,
      options:
        canOpen && !checkoutsPaused && rules.rails.includes('crypto')
          ? payOptions({ simulated: business.simulated, currency: page.currency, receiving, liveNetworks: this.liveNetworks, paused: pausedNetworks, accepted: rules.assets })
          : [],
      rails: payRails({
        accepted: rules.rails,
        takesCards: this.cards.takesCards(business),
        // a link's payments: the business pays the fees (decision 0030)
        cardPrice: cardPriceAccepted(payment !== null ? { currency: payment.currency, amount: payment.amount, feePayer: payment.fee_payer, feeRateBps: payment.fee_rate_bps } : { currency: page.currency, amount: page.amount, feePayer: 'business', feeRateBps: 0 }),
      }),
      ask_email: rules.ask_email,
      paused:
        business.status !== 'active'
          ? 'This business is not taking new payments right now.'
          : checkoutsPaused
            ? 'New checkouts are paused for a moment. Try again shortly.'
            : null,
      now: now.toISOString(),
    };
  }
}

function pagePayment(payment: PaymentView): PagePayment {
  return {
    id: payment.id,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    amount_text: formatMoney(payment.amount, payment.currency),
    description: textOrNull(payment.description),
    success_url: payment.success_url,
    cancel_url: payment.cancel_url,
    expires_at: payment.expires_at,
    received: receivedSoFar(payment),
    amount_received: payment.amount_received,
    amount_received_text: payment.amount_received > 0 ? formatMoney(payment.amount_received, payment.currency) : null,
  };
}

/** A description that is empty or only white space is none (the page then says "Payment"; audit L7, 2026-11-30). */
export function textOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined || value.trim() === '' ? null : value;
}

/**
 * What the page heads with: a payment's description, else "Payment"; a link's page its name, with
 * the description (the link's, which its payments carry) under it when there is one that says
 * something else (decision 0030 addendum, 2026-11-30).
 */
export function headingOf(page: Pick<PagePayment, 'description'>, link: Pick<LinkRow, 'name' | 'description'> | null): CheckoutPageModel['heading'] {
  if (link === null) return { title: page.description ?? 'Payment', detail: null };
  const detail = textOrNull(link.description);
  return { title: link.name, detail: detail !== null && detail !== link.name ? detail : null };
}

/** What arrived on a crypto payment and what is still due (its method's amount against the quote's), null before anything arrived. */
export function receivedSoFar(payment: Pick<PaymentView, 'method'>): PagePayment['received'] {
  const method = payment.method;
  if (method === null || method.rail !== 'crypto' || method.asset === null || method.amount === null || method.expected_amount === null) return null;
  const decimals = defaultRegistry.decimals(method.asset);
  const sent = parseCryptoAmount(method.amount, decimals);
  if (sent === 0n) return null;
  const due = parseCryptoAmount(method.expected_amount, decimals) - sent;
  return { asset: method.asset, amount: method.amount, remaining: due > 0n ? formatCryptoAmount(due, decimals) : null };
}

/** A link's page before its customer opened a checkout: the link's price and words, no payment yet. */
function linkPagePayment(link: LinkRow): PagePayment {
  const amount = Number(link.amount);
  return {
    id: null,
    status: 'pending',
    amount,
    currency: link.currency,
    amount_text: formatMoney(amount, link.currency),
    description: textOrNull(link.description) ?? link.name,
    success_url: link.success_url,
    cancel_url: null,
    expires_at: null,
    received: null,
    amount_received: 0,
    amount_received_text: null,
  };
}
