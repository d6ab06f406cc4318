import type { Sql } from '@lib/database';
import { KeyEncryptionKey } from './key-encryption';

/**
 * Where the recovery phrases of wallets created or imported in the service are kept: a small
 * port, so a KMS or an HSM can take the place of the table. The phrase never reaches an event,
 * a projection or a log line; it leaves the vault only to derive a key.
 */
export interface SeedVault {
  /** Seals and stores the wallet's phrase (again for the same wallet: no change). */
  seal(walletId: string, businessId: string, phrase: string): Promise<void>;
  /** The wallet's phrase, or null when the vault holds none for it. */
  phrase(walletId: string): Promise<string | null>;
}

export const SEED_VAULT = Symbol('SEED_VAULT');

/** The vault on the service's own database (table wallet_secrets), sealed under the configured KEK. */
export class DatabaseSeedVault implements SeedVault {
  constructor(
    private readonly db: Sql,
    private readonly kek: KeyEncryptionKey,
  ) {}

  async seal(walletId: string, businessId: string, phrase: string): Promise<void> {
    const sealed = this.kek.seal(Buffer.from(phrase, 'utf8'), additionalData(walletId));
    await this.db.query(
      `INSERT INTO wallet_secrets (wallet_id, business_id, kek_id, nonce, ciphertext, tag) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (wallet_id) DO NOTHING`,
      [walletId, businessId, this.kek.id, sealed.nonce, sealed.ciphertext, sealed.tag],
      'wallet_secret_put',
    );
  }

  async phrase(walletId: string): Promise<string | null> {
    const { rows } = await this.db.query<{ kek_id: string; nonce: Uint8Array; ciphertext: Uint8Array; tag: Uint8Array }>(
      `SELECT kek_id, nonce, ciphertext, tag FROM wallet_secrets WHERE wallet_id = $1`,
      [walletId],
      'wallet_secret_get',
    );
    const row = rows[0];
    if (!row) return null;
    if (row.kek_id !== this.kek.id) throw new Error(`the secret of wallet ${walletId} was sealed under another key-encryption key (${row.kek_id}); configure that WALLET_KEK`);
    return this.kek.open({ nonce: Buffer.from(row.nonce), ciphertext: Buffer.from(row.ciphertext), tag: Buffer.from(row.tag) }, additionalData(walletId)).toString('utf8');
  }
}

const additionalData = (walletId: string) => `wallet_secret:${walletId}`;
