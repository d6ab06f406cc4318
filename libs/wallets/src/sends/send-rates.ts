import { Logger } from '@nestjs/common';
import type { AssetCode, ChainRegistry, NetworkId } from '@lib/chains';
import type { AppConfig } from '@lib/core';
import { divide, pow10 } from '@lib/money';
import { FixedRates, LiveRates, NoLiveRates, RateSource, RatedCoin, RatesUnavailableError, isFeeCoin } from '@lib/rates';

/**
 * The USD value of a send (decision 0040), from the service's rates (decision 0020): a simulated
 * business's from the fixed table, a live one's from the live source (RATES_URL; its own cache
 * beside the checkouts'). Integer cents: `units × rate / 10^decimals`, rounded half up. A send is
 * never refused for want of a rate: without a fresh one its value is null (unknown).
 *
 * A send's fee is valued in its network's fee coin, which may be no asset of the service
 * (Polygon's POL): the rate sources price it too, the fixed table and the live source alike
 * (decision 0040, addendum of 2026-11-29), with the same rule as every coin when there is no
 * fresh price.
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
  valueUsd(simulated: boolean, asset: AssetCode, units: bigint): Promise<number | null> {
    return this.usd(simulated, asset, this.registry.decimals(asset), units);
  }

  /** USD cents of `units` (smallest units) of `network`'s fee coin (ETH, SOL, BTC, POL), or null without a rate. */
  feeUsd(simulated: boolean, network: NetworkId, units: bigint): Promise<number | null> {
    const native = this.registry.network(network).nativeCurrency;
    const coin: RatedCoin | null = native.asset ?? (isFeeCoin(native.symbol) ? native.symbol : null);
    return coin === null ? Promise.resolve(null) : this.usd(simulated, coin, native.decimals, units);
  }

  private async usd(simulated: boolean, asset: RatedCoin, decimals: number, units: bigint): Promise<number | null> {
    try {
      const quote = await (simulated ? this.simulated : this.live).quote(asset, 'USD');
      if (quote === null) return null;
      const cents = divide(units * BigInt(quote.rateMinorPerCoin), pow10(decimals), 'half_up');
      return cents <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(cents) : null;
    } catch (error) {
      if (!(error instanceof RatesUnavailableError)) throw error;
      this.logger.warn(`no ${asset} rate for a send's value (${error.reason}): ${error.message}`);
      return null;
    }
  }
}
