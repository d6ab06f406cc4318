import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { Database } from '@lib/database';

/**
 * Remembers the challenge tokens already used, shared by every replica: the first claim of a
 * token wins, later ones (any process) lose until it expires. Only a SHA-256 of the token is
 * stored.
 */
export interface UsedChallengeTokens {
  /** True for the first claim of this token within ttlMs, false afterwards. Throws when the store cannot be reached. */
  claim(token: string, ttlMs: number): Promise<boolean>;
  /** Deletes records past their time; returns how many (Redis expires its keys itself: 0). */
  purgeExpired(): Promise<number>;
  close(): Promise<void>;
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** In Redis: SET NX PX, one key per token digest. */
export class RedisUsedChallengeTokens implements UsedChallengeTokens {
  private readonly redis: Redis;
  private readonly ownsClient: boolean;

  /** A client passed in stays the caller's; a URL makes a client this store closes. */
  constructor(
    client: Redis | string,
    private readonly prefix = 'challenge:used:',
  ) {
    this.ownsClient = typeof client === 'string';
    this.redis = typeof client === 'string' ? new Redis(client, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : client;
    if (this.ownsClient) this.redis.on('error', () => undefined); // a refused claim reports it; ioredis would print each reconnect
  }

  async claim(token: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}${tokenDigest(token)}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK';
  }

  async purgeExpired(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** Insert the digest, or take over a row past its time; a returned row means the claim is ours. Times from the database's clock. */
const CLAIM_SQL = `INSERT INTO used_challenge_tokens AS u (digest, expires_at)
  VALUES ($1, now() + $2::double precision * interval '1 millisecond')
  ON CONFLICT (digest) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE u.expires_at <= now()
  RETURNING digest`;

/** In the SQL database (PostgreSQL or the embedded PGlite), table used_challenge_tokens (eventstore/postgres/010_used_challenge_tokens.sql). */
export class SqlUsedChallengeTokens implements UsedChallengeTokens {
  /** The database stays the caller's. */
  constructor(private readonly db: Database) {}

  async claim(token: string, ttlMs: number): Promise<boolean> {
    const { rows } = await this.db.query<{ digest: string }>(CLAIM_SQL, [tokenDigest(token), ttlMs], 'challenge_claim');
    return rows.length > 0;
  }

  /** Deletes the rows past their time; returns how many. */
  async purgeExpired(): Promise<number> {
    return (await this.db.query(`DELETE FROM used_challenge_tokens WHERE expires_at <= now()`)).rowCount;
  }

  async close(): Promise<void> {}
}

/** Redis when redisUrl is set (shared by every replica), the SQL database otherwise — as idempotency keys choose. */
export function createUsedChallengeTokens(config: { redisUrl?: string; db: Database }): RedisUsedChallengeTokens | SqlUsedChallengeTokens {
  return config.redisUrl ? new RedisUsedChallengeTokens(config.redisUrl) : new SqlUsedChallengeTokens(config.db);
}
