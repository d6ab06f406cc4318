import { Inject, Injectable } from '@nestjs/common';
import { AssetCode, ChainRegistry, NetworkFamily, NetworkId, family, registryWithTokens } from '@lib/chains';
import { APP_CONFIG, AppConfig, DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { DomainRefusal } from '@lib/domain';
import { CommandRunner, WriteMeta, metadataFor } from '@lib/eventstore';
import { parseCryptoAmount } from '@lib/money';
import { addressKey } from '../wallets.projector';
import { WALLET_TX_STREAM } from '../stream-categories';
import { WalletSendRates } from './send-rates';
import { SenderFunds, WalletSendCommand, WalletSendsState, walletSendsDecider } from './wallet-transaction.decider';

/**
 * The registry a send is checked against: the default one, with the token contracts the
 * configuration names for test chains (EVM_TOKENS_<NETWORK>), as the watchers read them.
 */
export function sendingRegistry(config: Pick<AppConfig, 'evmTokens'>): ChainRegistry {
  return registryWithTokens(config.evmTokens);
}

/** What the wallet-send use cases share (decision 0040): the wallet's sends stream, its addresses, the funds the service tracks. */
@Injectable()
export class WalletSends {
  readonly registry: ChainRegistry;
  /** USD values of sends from the service's rates. */
  readonly rates: WalletSendRates;

  constructor(
    private readonly runner: CommandRunner,
    @Inject(DATABASE) private readonly db: Sql,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.registry = sendingRegistry(config);
    this.rates = new WalletSendRates(config, this.registry);
  }

  async state(walletId: string): Promise<WalletSendsState> {
    return this.runner.state(walletSendsDecider, WALLET_TX_STREAM.stream(walletId));
  }

  /** Decides on the wallet's sends stream; concurrent sends conflict there and are decided again (the CommandRunner waits for the read models). The wallet's sends after the decision. */
  async decide(walletId: string, command: WalletSendCommand, meta: WriteMeta, occurredAt?: Date): Promise<WalletSendsState> {
    const metadata = { ...metadataFor(meta), ...(occurredAt ? { occurredAt: occurredAt.toISOString() } : {}) };
    return (await this.runner.run(walletSendsDecider, WALLET_TX_STREAM.stream(walletId), command, { context: undefined, metadata, maxAttempts: 50 })).state;
  }

  /** The wallet's addresses of a family that checkouts reserved (the `wallets` projection's address book). */
  async addresses(walletId: string, addressFamily: NetworkFamily): Promise<string[]> {
    const { rows } = await this.db.query<{ address: string }>(`SELECT address FROM wallet_addresses WHERE wallet_id = $1 AND family = $2`, [walletId, addressFamily], 'wallet_sends_addresses');
    return rows.map((r) => r.address);
  }

  /** Is `address` one of the wallet's (any family spelling)? */
  async owns(walletId: string, network: NetworkId, address: string): Promise<boolean> {
    const { rows } = await this.db.query(`SELECT 1 FROM wallet_addresses WHERE wallet_id = $1 AND address_key = $2`, [walletId, addressKey(family(network), address)], 'wallet_sends_owns');
    return rows.length > 0;
  }

  /**
   * What `address` received on `network` in `asset` and in the network coin, as the service
   * tracks it: the transfers payments saw arriving at it (payment_transfers by the checkout the
   * address was reserved for). The wallet's own sends are taken off by the decider. A fee coin the
   * service never receives (Polygon's POL) is `feeAsset: null`: the asset is still checked, the
   * fee is judged by the node alone (decision 0040, addendum).
   */
  async funds(walletId: string, network: NetworkId, address: string, asset: AssetCode, payers: { feePayer?: string; funder?: string } = {}): Promise<SenderFunds> {
    const feeAsset = this.registry.network(network).nativeCurrency.asset;
    const received = await this.received(walletId, network, address);
    if (feeAsset === null) return { asset: received(asset), feeCoin: 0n, feeAsset: null };
    const coinOf = async (other: string | undefined) => (other === undefined ? undefined : (await this.received(walletId, network, other))(feeAsset));
    const feeCoin = payers.feePayer !== undefined && payers.feePayer.toLowerCase() !== address.toLowerCase() ? (await coinOf(payers.feePayer))! : received(feeAsset);
    return { asset: received(asset), feeCoin, feeAsset, ...(payers.funder !== undefined ? { funderCoin: await coinOf(payers.funder) } : {}) };
  }

  /** What `address` received on `network`, per asset (smallest units), from the transfers payments saw. */
  async received(walletId: string, network: NetworkId, address: string): Promise<(asset: AssetCode) => bigint> {
    const { rows } = await this.db.query<{ asset: string | null; amount: string }>(
      `SELECT pt.asset, pt.amount FROM payment_transfers pt JOIN wallet_addresses wa ON wa.checkout_id = pt.checkout_id
        WHERE wa.wallet_id = $1 AND wa.address_key = $2 AND pt.network = $3`,
      [walletId, addressKey(family(network), address), network],
      'wallet_sends_funds',
    );
    return (code: AssetCode) => rows.filter((r) => r.asset === code).reduce((total, r) => total + parseCryptoAmount(r.amount, this.registry.decimals(code)), 0n);
  }

  refuse(code: 'invalid_request' | 'invalid_address', message: string, field: string): never {
    throw new DomainRefusal(code, message, field);
  }
}
