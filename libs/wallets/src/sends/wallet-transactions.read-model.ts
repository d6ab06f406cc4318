import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { AssetCode, NetworkId } from '@lib/chains';
import type { Sql } from '@lib/database';
import { NewestFirstTable, Page, newestFirstPage, statusListQuery } from '@lib/http';
import { isWalletTransactionId } from '../stream-categories';
import type { WalletTransactionRecordedData } from './events';
import { WalletTransactionRow, WalletTransactionView, walletTransactionView as view } from './wallet-transaction-view';

export type { WalletTransactionView } from './wallet-transaction-view';

export const WALLET_TRANSACTIONS_LIST = 'wallet_transactions';
const STATUSES = ['pending', 'confirmed', 'failed'];

/** A send still pending, for the receipt poll. */
export interface PendingSend {
  id: string;
  walletId: string;
  businessId: string;
  mode: string;
  origin: string;
  network: NetworkId;
  asset: AssetCode;
  units: string;
  toAddress: string;
  txHash: string;
}

const COLUMNS = `id, business_id, wallet_id, mode, origin, status, asset, network, amount, from_address, to_address, tx_hash, speed, note, value_usd, network_fee_usd, failure_reason, created_at, confirmed_at, failed_at`;
const WALLET_TRANSACTIONS_TABLE: NewestFirstTable = { list: WALLET_TRANSACTIONS_LIST, table: 'wallet_transactions', columns: COLUMNS, filterColumns: { status: 'status' } };

/** Queries over the `wallet_transactions` projection, scoped by business: another business's send reads as none. */
@Injectable()
export class WalletTransactionsReadModel {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  async get(businessId: string, id: string): Promise<WalletTransactionView | null> {
    if (!isWalletTransactionId(id)) return null;
    const { rows } = await this.db.query<WalletTransactionRow>(`SELECT ${COLUMNS} FROM wallet_transactions WHERE id = $1 AND business_id = $2`, [id, businessId], 'wallet_transaction_get');
    return rows[0] ? view(rows[0]) : null;
  }

  /** A recorded send with this hash on the network, of any wallet (a hash is one chain transaction). */
  async byHash(network: NetworkId, hash: string): Promise<{ id: string; businessId: string } | null> {
    const { rows } = await this.db.query<{ id: string; business_id: string }>(`SELECT id, business_id FROM wallet_transactions WHERE network = $1 AND tx_hash = $2 LIMIT 1`, [network, hash], 'wallet_transaction_by_hash');
    return rows[0] ? { id: rows[0].id, businessId: rows[0].business_id } : null;
  }

  /** GET /wallet/transactions: newest first, filter `status`, paged by a cursor bound to this list and its filter. */
  async list(businessId: string, query: Record<string, unknown> | null | undefined): Promise<Page<WalletTransactionView>> {
    const { page, filters } = statusListQuery(query, STATUSES);
    const paged = await newestFirstPage<WalletTransactionRow>(this.db, WALLET_TRANSACTIONS_TABLE, businessId, filters, page);
    return { ...paged, data: paged.data.map(view) };
  }

  /** Pending sends (for the confirmation poll), oldest first. */
  async pending(limit = 100): Promise<PendingSend[]> {
    const { rows } = await this.db.query<{ id: string; wallet_id: string; business_id: string; mode: string; origin: string; network: NetworkId; asset: AssetCode; units: string; to_address: string; tx_hash: string }>(
      `SELECT id, wallet_id, business_id, mode, origin, network, asset, units, to_address, tx_hash FROM wallet_transactions WHERE status = 'pending' ORDER BY created_at, id LIMIT $1`,
      [limit],
      'wallet_transactions_pending',
    );
    return rows.map((r) => ({ id: r.id, walletId: r.wallet_id, businessId: r.business_id, mode: r.mode, origin: r.origin, network: r.network, asset: r.asset, units: r.units, toAddress: r.to_address, txHash: r.tx_hash }));
  }

  /** Holds of live sends neither recorded nor released, taken before `before` (a crash between hold and record), oldest first. */
  async staleReservations(before: Date, limit = 100): Promise<WalletTransactionRecordedData[]> {
    const { rows } = await this.db.query<{ data: string }>(`SELECT data FROM wallet_send_reservations WHERE reserved_at < $1 ORDER BY reserved_at, id LIMIT $2`, [before.toISOString(), limit], 'wallet_send_reservations_stale');
    return rows.map((r) => JSON.parse(r.data) as WalletTransactionRecordedData);
  }
}
