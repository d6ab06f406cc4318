import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { family, isAssetCode, isNetworkId } from '@lib/chains';
import { DomainRefusal } from '@lib/domain';
import { formatCryptoAmount } from '@lib/money';
import { WalletAddresses } from '../../addresses';
import { WalletRelay } from '../../sends/relay';
import { WalletSends } from '../../sends/wallet-sends';
import { committed } from '../../sends/wallet-transaction.decider';
import { GetSendContextQuery, SendContext } from './get-send-context.query';

/**
 * The send context (decision 0040): for one of the wallet's addresses on a network, the next nonce
 * and fee suggestions per speed (a live business: its node; a simulated one: the count of its
 * sends from the address and fixed fees), and the funds the service lets it send.
 */
@QueryHandler(GetSendContextQuery)
export class GetSendContextHandler implements IQueryHandler<GetSendContextQuery, SendContext> {
  constructor(
    private readonly wallets: WalletAddresses,
    private readonly sends: WalletSends,
    private readonly relay: WalletRelay,
  ) {}

  async execute({ business, query }: GetSendContextQuery): Promise<SendContext> {
    const { network, asset, from } = query;
    if (!isNetworkId(network)) throw new DomainRefusal('invalid_request', 'network must be a network id.', 'network');
    if (!isAssetCode(asset) || !this.sends.registry.supports(asset, network)) throw new DomainRefusal('invalid_request', `${String(network)} does not carry ${String(asset)}.`, 'asset');
    if (typeof from !== 'string' || !this.sends.registry.isValidAddress(network, from)) throw new DomainRefusal('invalid_address', 'from must be an address of the network.', 'from');
    const wallet = await this.wallets.wallet(business.id);
    if (wallet === null) throw new DomainRefusal('not_found', 'This business has no wallet to send from.');
    if (!(await this.sends.owns(wallet.wallet_id, network, from))) throw new DomainRefusal('invalid_address', 'from is not one of this wallet’s addresses.', 'from');
    const registry = this.sends.registry;
    const state = await this.sends.state(wallet.wallet_id);
    const funds = await this.sends.funds(wallet.wallet_id, network, from, asset);
    const taken = committed(state, network, from, asset, funds.feeAsset);
    const left = (received: bigint, held: bigint) => (received > held ? received - held : 0n);
    const available =
      funds.feeAsset === null
        ? // a fee coin the service does not track (POL): the asset alone
          { asset: formatCryptoAmount(left(funds.asset, taken.asset), registry.decimals(asset)), fee_coin: null, fee_coin_asset: null }
        : asset === funds.feeAsset
          ? { asset: formatCryptoAmount(left(funds.asset, taken.asset + taken.fee), registry.decimals(asset)), fee_coin: formatCryptoAmount(left(funds.asset, taken.asset + taken.fee), registry.decimals(asset)), fee_coin_asset: funds.feeAsset }
          : { asset: formatCryptoAmount(left(funds.asset, taken.asset), registry.decimals(asset)), fee_coin: formatCryptoAmount(left(funds.feeCoin, taken.fee), registry.decimals(funds.feeAsset)), fee_coin_asset: funds.feeAsset };
    const base = { kind: 'send_context' as const, network, asset, from_address: registry.normalizeAddress(network, from), available };
    if (family(network) !== 'evm') return { ...base, chain_id: null, nonce: null, fees: null };
    const chainId = registry.network(network).chainId;
    if (business.simulated) {
      const sent = [...state.transactions.values()].filter((t) => t.data.kind === 'signed' && t.data.network === network && t.data.from_address?.toLowerCase() === from.toLowerCase() && t.status !== 'released').length;
      const fee = (gwei: bigint) => ({ max_fee_per_gas: (gwei * 1_000_000_000n).toString(), max_priority_fee_per_gas: 1_000_000_000n.toString() });
      return { ...base, chain_id: chainId, nonce: sent, fees: { slow: fee(2n), standard: fee(3n), fast: fee(5n) } };
    }
    const { nonce, fees } = await this.relay.evmContext(network, from);
    return { ...base, chain_id: chainId, nonce, fees };
  }

}
