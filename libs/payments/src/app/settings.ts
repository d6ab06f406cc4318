import type { AssetCode, NetworkId } from '@lib/chains';
/** What every payments use case reads from the deployment's configuration (PaymentsCoreModule provides it from AppConfig). */
export interface PaymentsSettings {
  /** Quote life (spec §4: the default is 15 minutes). */
  quoteTtlMs: number;
  /** Processing fee rate of every business until businesses carry their own (decision 0011). */
  feeRateBps: number;
  /** Networks a chain watcher watches (a node is configured for them): the only ones live businesses are offered (issue 11). */
  liveNetworks: readonly NetworkId[];
  /**
   * Networks whose token contracts the deployment names (EVM_TOKENS_<NETWORK>): their watchers
   * read those tokens only (and the native coin), so a live checkout takes no other token there.
   */
  liveTokens?: Partial<Record<NetworkId, Partial<Record<AssetCode, string>>>>;
}

export const PAYMENTS_SETTINGS = Symbol('PAYMENTS_SETTINGS');

/** The exchange-rate sources checkouts quote from (PaymentRateSources: the fixed table, the live source; decision 0020). */
export const PAYMENT_RATES = Symbol('PAYMENT_RATES');
