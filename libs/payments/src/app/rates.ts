import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AssetCode } from '@lib/chains';
import { RateQuote, RateSource, RatesUnavailableError } from '@lib/rates';
import { PaymentDomainError } from '../domain/errors';
import type { ActingBusiness } from './access';
import { PAYMENT_RATES } from './settings';

/** The sources PaymentsCoreModule provides (PAYMENT_RATES): simulated businesses quote from the fixed table, live ones from the live source. */
export interface PaymentRateSources {
  simulated: RateSource;
  live: RateSource;
}

/**
 * The rate a use case quotes from, and what it answers when there is none (decision 0020). The
 * rate is read in the handler, before anything is appended, and travels in the command and its
 * events, so deciders and the process manager never wait on the network.
 *
 * - POST /checkouts: a pair the source does not offer → 400 asset_unavailable; no fresh rate for
 *   any reason (unreachable, malformed, stale, no live source) → 503 temporarily_unavailable, the
 *   one 503 the route lists.
 * - POST /payments/{id}/request-remainder: the source gave no usable answer (unreachable,
 *   malformed) → 503 upstream_unavailable (retry with the same Idempotency-Key); its newest price
 *   is stale, there is no live source, or it stopped offering the pair → 503
 *   temporarily_unavailable.
 */
@Injectable()
export class PaymentRates {
  private readonly logger = new Logger('rates');

  constructor(@Inject(PAYMENT_RATES) private readonly sources: PaymentRateSources) {}

  /** The source a business's quotes come from. */
  sourceFor(business: Pick<ActingBusiness, 'simulated'>): RateSource {
    return business.simulated ? this.sources.simulated : this.sources.live;
  }

  /** A new checkout's rate: asset_unavailable for a pair not offered, temporarily_unavailable without a fresh rate. */
  forCheckout(business: Pick<ActingBusiness, 'simulated'>, asset: AssetCode, currency: string): Promise<RateQuote> {
    return this.quote(business, asset, currency, (error) =>
      error === null
        ? new PaymentDomainError('asset_unavailable', `${asset} cannot be quoted in ${currency}.`, 'asset')
        : new PaymentDomainError('temporarily_unavailable', `No fresh ${asset} rate in ${currency} right now; new checkouts in this coin are paused. Try again shortly.`),
    );
  }

  /** A remainder's fresh rate: upstream_unavailable when the source cannot be reached, temporarily_unavailable otherwise. */
  forRemainder(business: Pick<ActingBusiness, 'simulated'>, asset: AssetCode, currency: string): Promise<RateQuote> {
    return this.quote(business, asset, currency, (error) =>
      error === null
        ? new PaymentDomainError('temporarily_unavailable', `${asset} is no longer quoted in ${currency}; try again later.`)
        : error.upstreamFailed
          ? new PaymentDomainError('upstream_unavailable', 'The exchange-rate source cannot be reached; retry with the same Idempotency-Key.')
          : new PaymentDomainError('temporarily_unavailable', `No fresh ${asset} rate in ${currency} right now; try again shortly.`),
    );
  }

  /** The business's rate, or the refusal `refuse` names: for a pair not offered (null), or a source without a fresh rate. */
  private async quote(business: Pick<ActingBusiness, 'simulated'>, asset: AssetCode, currency: string, refuse: (error: RatesUnavailableError | null) => PaymentDomainError): Promise<RateQuote> {
    let quote: RateQuote | null;
    try {
      quote = await this.sourceFor(business).quote(asset, currency);
    } catch (error) {
      if (!(error instanceof RatesUnavailableError)) throw error;
      this.unavailable(error);
      throw refuse(error);
    }
    if (quote === null) throw refuse(null);
    return quote;
  }

  private unavailable(error: RatesUnavailableError): void {
    this.logger.warn(`no rate (${error.reason}): ${error.message}`);
  }
}
