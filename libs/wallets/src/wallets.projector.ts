import type { Sql } from '@lib/database';
import type { RecordedEvent } from '@lib/eventstore';
import type { Projector } from '@lib/projections';
import { NetworkFamily, family, isNetworkId } from '@lib/chains';
import { asWalletEvent } from './events';

/**
 * The `wallets` projection (deterministic: event data and recordedAt only):
 * - `wallets`: each business's wallet now (GET /wallet);
 * - `wallet_addresses`: every address a checkout reserved — from the CheckoutOpened events that
 *   name a wallet (the payments capability's stored format: `wallet_id`, `address`,
 *   `address_index`, `network`) — keyed by family and address (EVM in lower case: one address
 *   serves every EVM network). The chain watchers ask it which addresses are watched; a
 *   transfer to one is matched to its checkout.
 */
export const walletsProjector: Projector = {
  name: 'wallets',
  tables: ['wallet_addresses', 'wallets'],
  schema: `
    CREATE TABLE IF NOT EXISTS wallets (
      business_id  text        PRIMARY KEY,
      wallet_id    text        NOT NULL UNIQUE,
      type         text        NOT NULL,
      evm_xpub     text,
      bitcoin_xpub text,
      solana       jsonb,
      created_at   timestamptz NOT NULL
    );
    CREATE TABLE IF NOT EXISTS wallet_addresses (
      address_key   text        PRIMARY KEY,
      address       text        NOT NULL,
      family        text        NOT NULL,
      network       text        NOT NULL,
      wallet_id     text        NOT NULL,
      business_id   text        NOT NULL,
      checkout_id   text        NOT NULL,
      payment_id    text        NOT NULL,
      address_index integer     NOT NULL,
      reserved_at   timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS wallet_addresses_wallet ON wallet_addresses (wallet_id, reserved_at DESC, address_key);
  `,
  async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
    const wallets = new Map<string, object>();
    const addresses = new Map<string, object>();
    for (const event of events) {
      const wallet = asWalletEvent(event);
      if (wallet?.type === 'WalletCreated') {
        const d = wallet.data;
        wallets.set(d.business_id, {
          business_id: d.business_id,
          wallet_id: d.wallet_id,
          type: d.type,
          evm_xpub: d.evm_xpub,
          bitcoin_xpub: d.bitcoin_xpub,
          solana: d.solana,
          created_at: event.recordedAt.toISOString(),
        });
        continue;
      }
      if (event.type === 'CheckoutOpened') {
        const d = event.data as { checkout_id: string; payment_id: string; business_id?: string; network?: string; address?: string; wallet_id?: string | null; address_index?: number | null };
        if (!d.wallet_id || d.address_index == null || !d.address || !d.business_id || !isNetworkId(d.network)) continue;
        const key = addressKey(family(d.network), d.address);
        addresses.set(key, {
          address_key: key,
          address: d.address,
          family: family(d.network),
          network: d.network,
          wallet_id: d.wallet_id,
          business_id: d.business_id,
          checkout_id: d.checkout_id,
          payment_id: d.payment_id,
          address_index: d.address_index,
          reserved_at: event.recordedAt.toISOString(),
        });
      }
    }
    if (wallets.size > 0) {
      // a business's next wallet (after a deletion) takes the row over
      await tx.query(
        `INSERT INTO wallets SELECT * FROM jsonb_populate_recordset(NULL::wallets, $1::jsonb)
         ON CONFLICT (business_id) DO UPDATE SET wallet_id = EXCLUDED.wallet_id, type = EXCLUDED.type, evm_xpub = EXCLUDED.evm_xpub,
           bitcoin_xpub = EXCLUDED.bitcoin_xpub, solana = EXCLUDED.solana, created_at = EXCLUDED.created_at`,
        [JSON.stringify([...wallets.values()])],
      );
    }
    if (addresses.size > 0) {
      // an address is reserved once; a second CheckoutOpened naming it (never written) keeps the first
      await tx.query(`INSERT INTO wallet_addresses SELECT * FROM jsonb_populate_recordset(NULL::wallet_addresses, $1::jsonb) ON CONFLICT (address_key) DO NOTHING`, [
        JSON.stringify([...addresses.values()]),
      ]);
    }
  },
};

/** The address book's key: the family and the address, EVM addresses in lower case (one EVM address serves every EVM network). */
export function addressKey(addressFamily: NetworkFamily, address: string): string {
  return `${addressFamily}:${comparable(addressFamily, address)}`;
}

/** An address as the book compares it: EVM case-insensitively, the others exactly. */
export function comparable(addressFamily: NetworkFamily, address: string): string {
  return addressFamily === 'evm' ? address.toLowerCase() : address;
}
