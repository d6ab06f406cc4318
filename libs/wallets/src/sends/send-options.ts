import { DynamicModule, Global, Module } from '@nestjs/common';

/** How the send use case waits on the network (Nest: WALLET_SEND_OPTIONS; absent: the defaults below). */
export interface WalletSendOptions {
  /**
   * How long a send the node refused right after its funding transaction was relayed waits for the
   * funding to be mined before it is relayed again (default FUNDING_WAIT_MS). Tests shorten it.
   */
  fundingWaitMs?: number;
}

export const WALLET_SEND_OPTIONS = Symbol('WALLET_SEND_OPTIONS');

/** The default funding wait: about two blocks of a busy Ethereum, well inside a request's life and the stale-hold bound (STALE_RESERVATION_MS). */
export const FUNDING_WAIT_MS = 30_000;

/**
 * Binds WALLET_SEND_OPTIONS for the whole app: `WalletSendOptionsModule.using(options)`, passed to
 * the app's imports (tests), replaces the defaults. The service itself binds none.
 */
@Global()
@Module({})
export class WalletSendOptionsModule {
  static using(options: WalletSendOptions): DynamicModule {
    return { module: WalletSendOptionsModule, global: true, providers: [{ provide: WALLET_SEND_OPTIONS, useValue: options }], exports: [WALLET_SEND_OPTIONS] };
  }
}
