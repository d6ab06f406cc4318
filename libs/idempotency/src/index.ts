export type { BeginResult, IdempotencyStore, StoredResponse } from './idempotency-store';
export { DEFAULT_LOCK_TTL_MS, DEFAULT_RESPONSE_TTL_MS, fingerprint } from './idempotency-store';
export { RedisIdempotencyStore } from './redis-idempotency-store';
export { SqlIdempotencyStore } from './sql-idempotency-store';
export type { IdempotencyStoreConfig } from './create-idempotency-store';
export { createIdempotencyStore } from './create-idempotency-store';
