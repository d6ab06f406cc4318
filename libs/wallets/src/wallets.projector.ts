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
 * BusinessSetupFinished and WalletRecoveryPhraseRevealed (an audit record) change no table here.
 */
export const walletsProjector: Projector = {
  name: 'wallets',
  tables: ['wallet_addresses', 'wallet_changes', 'wallets'],
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
    CREATE TABLE IF NOT EXISTS wallet_changes (
      change_id    text        PRIMARY KEY,
      business_id  text        NOT NULL,
      wallet_id    text        NOT NULL,
      change       text        NOT NULL,
      status       text        NOT NULL,
      effective_at timestamptz NOT NULL,
      canceled_at  timestamptz,
      created_at   timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS wallet_changes_pending ON wallet_changes (business_id) WHERE status = 'pending';
    CREATE INDEX IF NOT EXISTS wallet_addresses_wallet ON wallet_addresses (wallet_id, reserved_at DESC, address_key);
  `,
  async handle(events: RecordedEvent[], tx: Sql): Promise<void> {
    // a business's wallet now: a row to upsert, or null once deleted (the last event of the batch wins)
    const wallets = new Map<string, object | null>();
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
      // wallet changes (decision 0041): in log order, one statement each (they are rare)
      if (wallet?.type === 'WalletDeletionRequested') {
        const d = wallet.data;
        await tx.query(
          `INSERT INTO wallet_changes (change_id, business_id, wallet_id, change, status, effective_at, canceled_at, created_at)
           VALUES ($1, $2, $3, 'delete', 'pending', $4, NULL, $5) ON CONFLICT (change_id) DO NOTHING`,
          [d.change_id, d.business_id, d.wallet_id, d.effective_at, d.requested_at],
        );
        continue;
      }
      if (wallet?.type === 'WalletChangeCanceled') {
        await tx.query(`UPDATE wallet_changes SET status = 'canceled', canceled_at = $2 WHERE change_id = $1`, [wallet.data.change_id, wallet.data.canceled_at]);
        continue;
      }
      if (wallet?.type === 'WalletDeleted') {
        if (wallet.data.change_id) await tx.query(`UPDATE wallet_changes SET status = 'applied' WHERE change_id = $1`, [wallet.data.change_id]);
        // the business's wallet is gone (its reserved addresses stay in the book: open checkouts keep them)
        if (wallets.has(wallet.data.business_id)) wallets.set(wallet.data.business_id, null);
        await tx.query(`DELETE FROM wallets WHERE business_id = $1 AND wallet_id = $2`, [wallet.data.business_id, wallet.data.wallet_id]);
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
    const upserts = [...wallets.values()].filter((row) => row !== null);
    if (upserts.length > 0) {
      // a business's next wallet (after a deletion) takes the row over
      await tx.query(
        `INSERT INTO wallets SELECT * FROM jsonb_populate_recordset(NULL::wallets, $1::jsonb)
         ON CONFLICT (business_id) DO UPDATE SET wallet_id = EXCLUDED.wallet_id, type = EXCLUDED.type, evm_xpub = EXCLUDED.evm_xpub,
           bitcoin_xpub = EXCLUDED.bitcoin_xpub, solana = EXCLUDED.solana, created_at = EXCLUDED.created_at`,
        [JSON.stringify(upserts)],
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
