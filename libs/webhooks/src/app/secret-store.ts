import { randomBytes } from 'node:crypto';
import type { Database } from '@lib/database';
import { newId } from '@lib/http';
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
 * projection, so replaying, rebuilding or verifying never reads, loses or leaks them. The row of
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
        await tx.query(`INSERT INTO webhook_secrets (id, webhook_id, business_id, secret, created_at) VALUES ($1, $2, $3, $4, $5)`, [
          id,
          webhookId,
          businessId,
          secret,
          now,
        ]);
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
    await this.db.query(`INSERT INTO webhook_secrets (id, webhook_id, business_id, secret, created_at) VALUES ($1, $2, $3, $4, $5)`, [
      id,
      webhookId,
      businessId,
      secret,
      this.now(),
    ]);
    return id;
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

  /** The secrets a delivery is signed with now: the current one first, then one in its grace period. */
  async signingSecrets(webhookId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ secret: string }>(
      `SELECT secret FROM webhook_secrets
        WHERE webhook_id = $1 AND state = 'active' AND (expires_at IS NULL OR expires_at > $2)
        ORDER BY revision DESC`,
      [webhookId, this.now()],
      'webhooks_signing_secrets',
    );
    return rows.map((r) => r.secret);
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
