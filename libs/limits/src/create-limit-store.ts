import Redis from 'ioredis';
import { Database } from '@lib/database';
import { RedisLimitStore } from './redis-limit-store';
import { SqlLimitStore } from './sql-limit-store';

export interface LimitStoreConfig {
  /** Redis connection string: the limits live there, shared by every replica. */
  redisUrl?: string;
  /** An existing client instead of redisUrl (left open on close). */
  redis?: Redis;
  /** The SQL database (PostgreSQL or embedded), used without Redis. Never process memory: several processes may share one database. */
  db: Database;
}

/** Redis when configured, the SQL database otherwise (the idempotency store's choice, decision 0033). */
export function createLimitStore(config: LimitStoreConfig): RedisLimitStore | SqlLimitStore {
  if (config.redisUrl && config.redis) throw new Error('give either redisUrl or redis, not both');
  if (config.redis) return new RedisLimitStore(config.redis);
  if (config.redisUrl) return new RedisLimitStore(config.redisUrl);
  return new SqlLimitStore(config.db);
}
