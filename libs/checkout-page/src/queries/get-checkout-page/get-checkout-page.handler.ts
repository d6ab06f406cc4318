import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { CommandRunner } from '@lib/eventstore';
import { findBusiness, findCheckoutSettings } from '@lib/businesses';
import { CardRoutes } from '@lib/cards';
import { NetworkId, isNetworkId } from '@lib/chains';
import { ServicePauses } from '@lib/operations';
import { BusinessClock, CheckoutView, PaymentView, PaymentsReadModel, watchedNetworks } from '@lib/payments';
import { findWallet } from '@lib/wallets';
import { payOptions, payRails } from '../../availability';
import { CHECKOUT_ID, CheckoutPageModel, CheckoutPageNotFound, PAYMENT_CODE, PagePayment } from '../../page-model';
import { formatMoney } from '../../render/format';
import { GetCheckoutPageQuery } from './get-checkout-page.query';

/** Payment states in which a new checkout can be opened (the others are paid, closed or under review). */
const OPEN_PAYMENT: readonly string[] = ['pending'];

/**
 * The checkout page's model from the read models (decision 0027): the payment its code names
 * (after the read barrier, so a payment answered a moment ago is found), its business, the
 * checkout on screen, the choices POST /checkouts would accept (wallet networks, watched
 * networks for a live business, the operator's pauses, quotable coins) narrowed by the business's
 * checkout settings (decision 0028: rails, pairs, e-mail asked, the name and support address shown),
 * card only when a processor takes the business's cards, the business's clock.
 */
@QueryHandler(GetCheckoutPageQuery)
export class GetCheckoutPageHandler implements IQueryHandler<GetCheckoutPageQuery, CheckoutPageModel> {
  private readonly liveNetworks: NetworkId[];

  constructor(
    private readonly read: PaymentsReadModel,
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
    const found = await this.read.paymentIdByCode(code);
    if (!found) throw new CheckoutPageNotFound('payment with this code');
    const [payment, business] = await Promise.all([this.read.getPayment(found.businessId, found.paymentId), findBusiness(this.db, found.businessId)]);
    if (!payment || !business || payment.url === null) throw new CheckoutPageNotFound('payment with this code');

    const checkout = await this.checkoutOnScreen(payment, checkoutId);
    const [now, pauses, wallet, { settings }] = await Promise.all([this.clock.now(business.id), this.pauses.list(), findWallet(this.db, business.id), findCheckoutSettings(this.db, business.id)]);
    const pausedNetworks = new Set(pauses.flatMap((p) => (p.target.startsWith('network:') && isNetworkId(p.target.slice(8)) ? [p.target.slice(8) as NetworkId] : [])));
    const receiving = new Set((wallet?.networks ?? []).filter((n) => n.receiving).map((n) => n.network));
    const canOpen = OPEN_PAYMENT.includes(payment.status) && business.status === 'active';
    const checkoutsPaused = pauses.some((p) => p.target === 'checkouts');
    return {
      code,
      payment: pagePayment(payment),
      business: { name: settings.display_name ?? business.name, support_email: settings.support_email ?? business.support_email, simulated: business.simulated },
      checkout,
      options:
        canOpen && !checkoutsPaused && settings.rails.includes('crypto')
          ? payOptions({ simulated: business.simulated, currency: payment.currency, receiving, liveNetworks: this.liveNetworks, paused: pausedNetworks, accepted: settings.assets })
          : [],
      rails: payRails({ accepted: settings.rails, takesCards: this.cards.takesCards(business) }),
      ask_email: settings.ask_email,
      paused:
        business.status !== 'active'
          ? 'This business is not taking new payments right now.'
          : checkoutsPaused
            ? 'New checkouts are paused for a moment. Try again shortly.'
            : null,
      now: now.toISOString(),
    };
  }

  /** `?s=` when it names one of this payment's checkouts, else the payment's current checkout, else none. */
  private async checkoutOnScreen(payment: PaymentView, checkoutId: string | null): Promise<CheckoutView | null> {
    for (const id of [checkoutId, payment.checkout_id]) {
      if (id === null || !CHECKOUT_ID.test(id)) continue;
      const view = await this.read.getCheckout(id, { secretFields: false });
      if (view && view.payment_id === payment.id) return view;
    }
    return null;
  }
}

function pagePayment(payment: PaymentView): PagePayment {
  return {
    id: payment.id,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    amount_text: formatMoney(payment.amount, payment.currency),
    description: payment.description,
    success_url: payment.success_url,
    cancel_url: payment.cancel_url,
    expires_at: payment.expires_at,
  };
}
