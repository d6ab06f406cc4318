import { Logger } from '@nestjs/common';
import type { AssetCode, ChainRegistry } from '@lib/chains';
import type { AppConfig } from '@lib/core';
import { divide, pow10 } from '@lib/money';
import { FixedRates, LiveRates, NoLiveRates, RateSource, RatesUnavailableError } from '@lib/rates';

/**
 * The USD value of a send (decision 0040), from the service's rates (decision 0020): a simulated
 * business's from the fixed table, a live one's from the live source (RATES_URL; its own cache
 * beside the checkouts'). Integer cents: `units × rate / 10^decimals`, rounded half up. A send is
 * never refused for want of a rate: without a fresh one its value is null (unknown).
 */
export class WalletSendRates {
  private readonly logger = new Logger('wallet-send-rates');
  private readonly simulated: RateSource = new FixedRates();
  private readonly live: RateSource;

  constructor(
    config: Pick<AppConfig, 'ratesUrl' | 'ratesMaxAgeMs'>,
    private readonly registry: ChainRegistry,
  ) {
    this.live = config.ratesUrl === null ? new NoLiveRates() : new LiveRates({ baseUrl: config.ratesUrl, maxAgeMs: config.ratesMaxAgeMs });
  }

  /** USD cents of `units` (smallest units) of `asset`, or null without a rate. */
  async valueUsd(simulated: boolean, asset: AssetCode, units: bigint): Promise<number | null> {
    try {
      const quote = await (simulated ? this.simulated : this.live).quote(asset, 'USD');
      if (quote === null) return null;
      const cents = divide(units * BigInt(quote.rateMinorPerCoin), pow10(this.registry.decimals(asset)), 'half_up');
      return cents <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(cents) : null;
    } catch (error) {
      if (!(error instanceof RatesUnavailableError)) throw error;
      this.logger.warn(`no ${asset} rate for a send's value (${error.reason}): ${error.message}`);
      return null;
    }
  }
}
