import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { NetworkFamily, NetworkId, WatchedAddresses } from '@lib/chains';
import { addressKey, comparable } from './wallets.projector';

/** The checkout an address was reserved for. */
export interface AddressOwner {
  address: string;
  /** The network the checkout quoted (a transfer may arrive on another of the family). */
  network: NetworkId;
  walletId: string;
  businessId: string;
  checkoutId: string;
  paymentId: string;
}

/**
 * The addresses checkouts reserved (the `wallets` projection's wallet_addresses), for the chain
 * watchers: which of a block's recipients are watched, and whose checkout each one is.
 */
@Injectable()
export class WalletAddressBook implements WatchedAddresses {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  async watched(addressFamily: NetworkFamily, addresses: readonly string[]): Promise<ReadonlySet<string>> {
    if (addresses.length === 0) return new Set();
    const keys = addresses.map((a) => addressKey(addressFamily, a));
    const { rows } = await this.db.query<{ address: string }>(`SELECT address FROM wallet_addresses WHERE address_key = ANY($1::text[])`, [keys], 'wallet_addresses_watched');
    const found = new Set(rows.map((r) => comparable(addressFamily, r.address)));
    // answered in the caller's spelling, so a reader can match its own strings
    return new Set(addresses.filter((a) => found.has(comparable(addressFamily, a))));
  }

  async owner(addressFamily: NetworkFamily, address: string): Promise<AddressOwner | null> {
    const key = addressKey(addressFamily, address);
    const { rows } = await this.db.query<{ address: string; network: NetworkId; wallet_id: string; business_id: string; checkout_id: string; payment_id: string }>(
      `SELECT address, network, wallet_id, business_id, checkout_id, payment_id FROM wallet_addresses WHERE address_key = $1`,
      [key],
      'wallet_addresses_owner',
    );
    const row = rows[0];
    return row ? { address: row.address, network: row.network, walletId: row.wallet_id, businessId: row.business_id, checkoutId: row.checkout_id, paymentId: row.payment_id } : null;
  }
}
