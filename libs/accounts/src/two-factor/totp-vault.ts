import type { Sql } from '@lib/database';
import type { KeyEncryptionKey } from '@lib/wallets';

/**
 * Where TOTP secrets are kept (decision 0036): sealed under the service's key-encryption key
 * with the wallets' mechanism (libs/wallets KeyEncryptionKey: AES-256-GCM, a random nonce per
 * secret, the person and setup ids as additional data so a sealed secret moved to another row
 * does not open), in table `account_totp_secrets` (migration 013) — never in an event, a
 * projection or a log line. A small port, like the wallets' SeedVault, so a KMS can replace it.
 */
export interface TotpVault {
  seal(setupId: string, accountId: string, secret: string): Promise<void>;
  /** The setup's secret, or null when none is kept (forgotten, or another person's). */
  secret(setupId: string, accountId: string): Promise<string | null>;
  /** Forgets the person's secrets but `keep`'s (a new setup, enabling: the others are of no use; disabling: all). */
  forget(accountId: string, keep: string | null): Promise<void>;
}

export const TOTP_VAULT = Symbol('TOTP_VAULT');

const additionalData = (accountId: string, setupId: string) => `account_totp:${accountId}:${setupId}`;

export class DatabaseTotpVault implements TotpVault {
  constructor(
    private readonly db: Sql,
    private readonly kek: KeyEncryptionKey,
  ) {}

  async seal(setupId: string, accountId: string, secret: string): Promise<void> {
    const sealed = this.kek.seal(Buffer.from(secret, 'utf8'), additionalData(accountId, setupId));
    await this.db.query(
      `INSERT INTO account_totp_secrets (setup_id, account_id, kek_id, nonce, ciphertext, tag) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (setup_id) DO NOTHING`,
      [setupId, accountId, this.kek.id, sealed.nonce, sealed.ciphertext, sealed.tag],
      'account_totp_put',
    );
  }

  async secret(setupId: string, accountId: string): Promise<string | null> {
    const { rows } = await this.db.query<{ kek_id: string; nonce: Uint8Array; ciphertext: Uint8Array; tag: Uint8Array }>(
      `SELECT kek_id, nonce, ciphertext, tag FROM account_totp_secrets WHERE setup_id = $1 AND account_id = $2`,
      [setupId, accountId],
      'account_totp_get',
    );
    const row = rows[0];
    if (!row) return null;
    if (row.kek_id !== this.kek.id) throw new Error(`the two-step secret ${setupId} was sealed under another key-encryption key (${row.kek_id}); configure that WALLET_KEK`);
    return this.kek.open({ nonce: Buffer.from(row.nonce), ciphertext: Buffer.from(row.ciphertext), tag: Buffer.from(row.tag) }, additionalData(accountId, setupId)).toString('utf8');
  }

  async forget(accountId: string, keep: string | null): Promise<void> {
    await this.db.query(`DELETE FROM account_totp_secrets WHERE account_id = $1 AND setup_id IS DISTINCT FROM $2`, [accountId, keep], 'account_totp_forget');
  }
}
