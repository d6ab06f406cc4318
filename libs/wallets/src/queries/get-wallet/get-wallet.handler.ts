import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, AppConfig, DATABASE, watchedNetworks } from '@lib/core';
import type { Sql } from '@lib/database';
import { DomainRefusal } from '@lib/domain';
import type { NetworkId } from '@lib/chains';
import type { WalletCreatedData, WalletType } from '../../events';
import type { WalletChangeView } from '../../changes/wallet-changes';
import { RECENT_ADDRESSES, WalletView, walletView } from '../../views';
import { GetWalletQuery } from './get-wallet.query';

interface WalletRow {
  wallet_id: string;
  business_id: string;
  type: WalletType;
  evm_xpub: string | null;
  bitcoin_xpub: string | null;
  solana: WalletCreatedData['solana'];
  created_at: Date;
  total: string | number;
  pending_change: WalletChangeView | null;
  recent: { address: string; network: NetworkId; index: number; checkout_id: string; payment_id: string; reserved_at: string }[] | null;
}

/**
 * The business's wallet from the `wallets` projection, with its addresses in use, in one
 * statement. `watched`: for a live business, the networks this service watches (liveNetworksOf);
 * null shows what the keys alone allow (a simulated business).
 */
export async function findWallet(db: Sql, businessId: string, watched: ReadonlySet<NetworkId> | null = null): Promise<WalletView | null> {
  const { rows } = await db.query<WalletRow>(
    `SELECT w.*, (SELECT count(*) FROM wallet_addresses a WHERE a.wallet_id = w.wallet_id) AS total,
       (SELECT json_agg(r) FROM (SELECT address, network, address_index AS index, checkout_id, payment_id,
              to_char(reserved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS reserved_at
            FROM wallet_addresses a WHERE a.wallet_id = w.wallet_id ORDER BY a.reserved_at DESC, a.address_key LIMIT ${RECENT_ADDRESSES}) r) AS recent,
       (SELECT json_build_object('kind', 'wallet_change', 'id', c.change_id, 'change', c.change, 'status', c.status, 'wallet_id', c.wallet_id,
              'effective_at', to_char(c.effective_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'canceled_at', NULL,
              'created_at', to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
          FROM wallet_changes c WHERE c.business_id = w.business_id AND c.wallet_id = w.wallet_id AND c.status = 'pending' LIMIT 1) AS pending_change
     FROM wallets w WHERE w.business_id = $1`,
    [businessId],
    'wallets_get',
  );
  const row = rows[0];
  if (!row) return null;
  const data: WalletCreatedData = { wallet_id: row.wallet_id, business_id: row.business_id, type: row.type, evm_xpub: row.evm_xpub, bitcoin_xpub: row.bitcoin_xpub, solana: row.solana };
  return walletView(data, new Date(row.created_at).toISOString(), { total: Number(row.total), recent: row.recent ?? [] }, row.pending_change ?? null, watched);
}

/** The part of the configuration that says which chains this service watches. */
export type ChainNodes = Pick<AppConfig, 'evmRpcUrls' | 'solanaRpcUrl' | 'bitcoinEsploraUrl'>;

/** What a business's checkouts can take beyond its wallet's keys: every network when simulated, else those this service watches. */
export function liveNetworksOf(config: ChainNodes, simulated: boolean): ReadonlySet<NetworkId> | null {
  return simulated ? null : new Set(watchedNetworks(config));
}

@QueryHandler(GetWalletQuery)
export class GetWalletHandler implements IQueryHandler<GetWalletQuery> {
  constructor(
    @Inject(DATABASE) private readonly db: Sql,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ businessId, simulated }: GetWalletQuery): Promise<WalletView> {
    const wallet = await findWallet(this.db, businessId, liveNetworksOf(this.config, simulated));
    if (!wallet) throw new DomainRefusal('not_found', 'This business has no wallet.');
    return wallet;
  }
}
