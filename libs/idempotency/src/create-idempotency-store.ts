import { Database } from '@lib/database';
import { RedisIdempotencyStore } from './redis-idempotency-store';
import { SqlIdempotencyStore } from './sql-idempotency-store';

export interface IdempotencyStoreConfig {
  /** Redis connection string (redis://…); selects the Redis store, shared by every replica. */
  redisUrl?: string;
  /** The SQL database (PostgreSQL or embedded), used when there is no Redis. */
  db: Database;
  /** Redis key prefix (default 'idem:'). */
  keyPrefix?: string;
}

/**
 * Redis when redisUrl is set, the SQL database otherwise. Both are IdempotencyStores; the SQL
 * one also has purgeExpired() (Redis expires its keys itself).
 */
export function createIdempotencyStore(config: IdempotencyStoreConfig): RedisIdempotencyStore | SqlIdempotencyStore {
  if (config.redisUrl) return new RedisIdempotencyStore(config.redisUrl, config.keyPrefix);
  return new SqlIdempotencyStore(config.db);
}
