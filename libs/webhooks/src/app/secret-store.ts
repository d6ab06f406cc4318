import { randomBytes } from 'node:crypto';
import type { Database, Sql } from '@lib/database';
import { newId } from '@lib/http';
import type { KeyEncryptionKey } from '@lib/wallets';
import { WebhookError } from '../domain/errors';

/** `whsec_` + base64 of 32 random bytes (256 bits, the HMAC-SHA256 key size; Standard Webhooks asks for 24 to 64). */
export const SECRET_PREFIX = 'whsec_';
export const SECRET_BYTES = 32;

export function mintSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The masked form shown on an endpoint (spec §2): the prefix, dots, and the secret's own last 4
 * characters — base64 padding included, so the hint ends exactly as the secret returned once
 * does (the secret keeps its padding: Standard Webhooks libraries decode it as standard base64).
 */
export function secretHint(secret: string): string {
  return `${SECRET_PREFIX}••••${secret.slice(SECRET_PREFIX.length).slice(-4)}`;
}

/**
 * A secret as `webhook_secrets` keeps it (migration 023): sealed under the key-encryption key
 * (`kek_id`, `nonce`, `ciphertext`, `tag`), or — a row written before that migration, not yet
 * sealed by a start-up (sealClearSecrets) — in clear in `secret`.
 */
export interface StoredSecret {
  id: string;
  webhook_id: string;
  secret: string | null;
  kek_id: string | null;
  nonce: Uint8Array | null;
  ciphertext: Uint8Array | null;
  tag: Uint8Array | null;
}

/** What binds a sealed secret to its row: moved to another row or endpoint, it does not open. */
const additionalData = (webhookId: string, secretId: string) => `webhook_secret:${webhookId}:${secretId}`;

/** Seals a webhook signing secret for row `secretId` of endpoint `webhookId` (AES-256-GCM under the KEK, a random nonce). */
export function sealWebhookSecret(kek: KeyEncryptionKey, webhookId: string, secretId: string, secret: string): { kek_id: string; nonce: Buffer; ciphertext: Buffer; tag: Buffer } {
  const sealed = kek.seal(Buffer.from(secret, 'utf8'), additionalData(webhookId, secretId));
  return { kek_id: kek.id, ...sealed };
}

/** A secret the configured key-encryption key cannot open: sealed under another one, or altered. */
export class WebhookSecretUnavailable extends Error {
  constructor(
    message: string,
    readonly webhookId: string,
    /** Why, without ids or key names: what a delivery's attempt records (the business sees it). */
    readonly reason: string,
  ) {
    super(message);
    this.name = 'WebhookSecretUnavailable';
  }
}

/**
 * The secret of a stored row. Throws WebhookSecretUnavailable, with a message that says why, when
 * the row was sealed under another key-encryption key (configure that WALLET_KEK) or does not
 * open under this one (altered, or moved from another row). Never puts the secret in a message.
 */
export function openWebhookSecret(kek: KeyEncryptionKey, row: StoredSecret): string {
  if (row.secret !== null) return row.secret; // written before migration 023 and not sealed yet (the next start seals it)
  if (row.kek_id !== kek.id) {
    throw new WebhookSecretUnavailable(
      `the signing secret ${row.id} of webhook endpoint ${row.webhook_id} was sealed under another key-encryption key (${row.kek_id}); configure that WALLET_KEK`,
      row.webhook_id,
      'sealed under another key-encryption key',
    );
  }
  try {
    return kek
      .open({ nonce: Buffer.from(row.nonce!), ciphertext: Buffer.from(row.ciphertext!), tag: Buffer.from(row.tag!) }, additionalData(row.webhook_id, row.id))
      .toString('utf8');
  } catch {
    throw new WebhookSecretUnavailable(
      `the signing secret ${row.id} of webhook endpoint ${row.webhook_id} does not open under key-encryption key ${kek.id} (altered, or moved from another row)`,
      row.webhook_id,
      'does not open under the key-encryption key',
    );
  }
}

/** Clear rows sealed per transaction at start. */
const SEAL_BATCH = 200;

/**
 * Seals the secrets still kept in clear (rows written before migration 023) under `kek` and sets
 * their clear column to NULL; resolves how many it sealed. Every process that opens webhook
 * secrets runs it at start (the KEK is configuration: no migration can do it). Idempotent and
 * safe with several processes starting at once: batches run under one advisory lock, and a row
 * is updated only while its clear secret is still the one read, so a row is sealed once.
 */
export async function sealClearSecrets(db: Database, kek: KeyEncryptionKey): Promise<number> {
  let sealed = 0;
  for (;;) {
    const batch = await db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(4242023)`);
      const { rows } = await tx.query<{ id: string; webhook_id: string; secret: string }>(
        `SELECT id, webhook_id, secret FROM webhook_secrets WHERE secret IS NOT NULL ORDER BY id LIMIT ${SEAL_BATCH}`,
      );
      for (const row of rows) {
        const box = sealWebhookSecret(kek, row.webhook_id, row.id, row.secret);
        await tx.query(`UPDATE webhook_secrets SET kek_id = $3, nonce = $4, ciphertext = $5, tag = $6, secret = NULL WHERE id = $1 AND secret = $2`, [
          row.id,
          row.secret,
          box.kek_id,
          box.nonce,
          box.ciphertext,
          box.tag,
        ]);
      }
      return rows.length;
    });
    sealed += batch;
    if (batch < SEAL_BATCH) return sealed;
  }
}

export interface SecretStoreOptions {
  /** Wall time (tests inject theirs). */
  now?: () => Date;
  /** Endpoints a business may have (default 16). */
  maxEndpoints?: number;
  /** How long an unrecorded (pending) secret of a new endpoint holds its place in the limit (default 5 min). */
  pendingHoldMs?: number;
}

export const DEFAULT_MAX_ENDPOINTS = 16;

/**
 * Signing secrets in `webhook_secrets` (migration 004): not in the event log and not in any
 * projection, so replaying, rebuilding or verifying never reads, loses or leaks them; sealed
 * under the service's key-encryption key (migration 023, decision 0013's addendum of
 * 2026-11-30), the clear column left NULL. The row of
 * a new endpoint is written before the endpoint's first event (the limit of endpoints per
 * business is counted here, under a per-business lock, so two racing creates cannot both take
 * the last place), made active once the event is recorded, and deleted with the endpoint.
 */
export class WebhookSecretStore {
  private readonly now: () => Date;
  readonly maxEndpoints: number;
  private readonly pendingHoldMs: number;

  constructor(
    private readonly db: Database,
    private readonly kek: KeyEncryptionKey,
    options: SecretStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.maxEndpoints = options.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS;
    this.pendingHoldMs = options.pendingHoldMs ?? 5 * 60_000;
  }

  /**
   * Takes one of the business's endpoint places for a new endpoint and stores its secret as
   * pending; 409 webhook_limit when every place is taken. Resolves the secret's row id.
   */
  async reserveForNewEndpoint(businessId: string, webhookId: string, secret: string): Promise<string> {
    const id = newId('whs');
    const attempt = () =>
      this.db.transaction(async (tx) => {
        const now = this.now();
        await tx.query(`SELECT pg_advisory_xact_lock(4242013, hashtext($1))`, [businessId]);
        // unrecorded secrets of crashed creates and rotations, long gone stale
        await tx.query(`DELETE FROM webhook_secrets WHERE business_id = $1 AND state = 'pending' AND created_at < $2`, [
          businessId,
          new Date(now.getTime() - 24 * 3600_000),
        ]);
        const { rows } = await tx.query<{ n: string }>(
          `SELECT count(DISTINCT webhook_id)::text AS n FROM webhook_secrets
            WHERE business_id = $1 AND (state = 'active' OR created_at > $2)`,
          [businessId, new Date(now.getTime() - this.pendingHoldMs)],
        );
        if (Number(rows[0].n) >= this.maxEndpoints) return false;
        await this.insert(tx, id, webhookId, businessId, secret, now);
        return true;
      });
    if (await attempt()) return id;
    // At the limit: the secrets of an endpoint whose deletion was recorded but not cleaned up (a
    // crash between the two) must not hold a place. Then count again.
    await this.forgetDeletedEndpoints(businessId);
    if (await attempt()) return id;
    throw new WebhookError('webhook_limit', `A business can have at most ${this.maxEndpoints} webhook endpoints: delete one first.`);
  }

  /** Stores a rotation's new secret as pending; resolves its row id. */
  async addPending(businessId: string, webhookId: string, secret: string): Promise<string> {
    const id = newId('whs');
    await this.insert(this.db, id, webhookId, businessId, secret, this.now());
    return id;
  }

  /** Writes a new secret's row, sealed: the clear column stays NULL. */
  private async insert(sql: Sql, id: string, webhookId: string, businessId: string, secret: string, now: Date): Promise<void> {
    const box = sealWebhookSecret(this.kek, webhookId, id, secret);
    await sql.query(
      `INSERT INTO webhook_secrets (id, webhook_id, business_id, kek_id, nonce, ciphertext, tag, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, webhookId, businessId, box.kek_id, box.nonce, box.ciphertext, box.tag, now],
    );
  }

  /** sealClearSecrets with this store's key-encryption key (at start). */
  sealClearSecrets(): Promise<number> {
    return sealClearSecrets(this.db, this.kek);
  }

  /**
   * Makes a recorded secret active: the secret recorded at the highest stream revision becomes
   * current (expires_at NULL), the one before it signs too until `graceUntil`, older ones stop
   * now (a second rotation ends the first one's grace: at most two secrets sign).
   */
  async activate(secretId: string, revision: number, graceUntil: Date): Promise<void> {
    await this.db.transaction(async (tx) => {
      const now = this.now();
      const { rows: target } = await tx.query<{ webhook_id: string }>(`SELECT webhook_id FROM webhook_secrets WHERE id = $1`, [secretId]);
      if (!target.length) throw new Error(`webhook secret ${secretId} is gone`);
      const { rows } = await tx.query<{ id: string; state: string; revision: string | null; expires_at: Date | null }>(
        `SELECT id, state, revision::text AS revision, expires_at FROM webhook_secrets WHERE webhook_id = $1 ORDER BY id FOR UPDATE`,
        [target[0].webhook_id],
      );
      await tx.query(`UPDATE webhook_secrets SET state = 'active', revision = $2, activated_at = $3 WHERE id = $1`, [secretId, revision, now]);
      const active = rows
        .map((r) => (r.id === secretId ? { ...r, state: 'active', revision: String(revision) } : r))
        .filter((r) => r.state === 'active')
        .sort((a, b) => Number(b.revision) - Number(a.revision));
      for (const [i, row] of active.entries()) {
        const current = row.expires_at ? new Date(row.expires_at) : null;
        let wanted: Date | null;
        if (i === 0) wanted = null;
        else if (i === 1) wanted = current && current < graceUntil ? current : graceUntil;
        else wanted = current && current < now ? current : now;
        if ((wanted?.getTime() ?? null) !== (current?.getTime() ?? null)) {
          await tx.query(`UPDATE webhook_secrets SET expires_at = $2 WHERE id = $1`, [row.id, wanted]);
        }
      }
    });
  }

  /** Forgets a secret whose create or rotation was not recorded. */
  async discard(secretId: string): Promise<void> {
    await this.db.query(`DELETE FROM webhook_secrets WHERE id = $1 AND state = 'pending'`, [secretId]);
  }

  /** Forgets every secret of a deleted endpoint. */
  async deleteEndpoint(webhookId: string): Promise<void> {
    await this.db.query(`DELETE FROM webhook_secrets WHERE webhook_id = $1`, [webhookId]);
  }

  /**
   * The secrets a delivery is signed with now: the current one first, then one in its grace
   * period, opened. Throws WebhookSecretUnavailable when one does not open under this KEK.
   */
  async signingSecrets(webhookId: string): Promise<string[]> {
    const { rows } = await this.db.query<StoredSecret>(
      `SELECT id, webhook_id, secret, kek_id, nonce, ciphertext, tag FROM webhook_secrets
        WHERE webhook_id = $1 AND state = 'active' AND (expires_at IS NULL OR expires_at > $2)
        ORDER BY revision DESC`,
      [webhookId, this.now()],
      'webhooks_signing_secrets',
    );
    return rows.map((r) => openWebhookSecret(this.kek, r));
  }

  private async forgetDeletedEndpoints(businessId: string): Promise<void> {
    try {
      await this.db.query(
        `DELETE FROM webhook_secrets s USING webhook_endpoints e
          WHERE s.business_id = $1 AND e.id = s.webhook_id AND e.deleted_at IS NOT NULL`,
        [businessId],
      );
    } catch {
      // the projection's table is not there (never ran, or being rebuilt): nothing to reconcile with
    }
  }
}
