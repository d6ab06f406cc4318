import Redis from 'ioredis';
import { ClaimingIdempotencyStore, HeldKey } from './idempotency-store';

/** A running record also keeps the token of its holder, which complete() and release() check. */
type RedisRecord = HeldKey & { token?: string };

/**
 * complete: only while the key is running under this token. The done record is spliced
 * from the running record's fingerprint and the response JSON the caller built, so the
 * response is stored byte for byte as JSON.stringify wrote it.
 * KEYS[1] key; ARGV[1] token, ARGV[2] response JSON, ARGV[3] ttl ms.
 */
const COMPLETE_LUA = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, record = pcall(cjson.decode, current)
if not ok or type(record) ~= 'table' or record.state ~= 'running' or record.token ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], '{"state":"done","fingerprint":' .. cjson.encode(record.fingerprint) .. ',"response":' .. ARGV[2] .. '}', 'PX', ARGV[3])
return 1
`;

/** release: deletes the key only while it is running under this token. KEYS[1] key; ARGV[1] token. */
const RELEASE_LUA = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, record = pcall(cjson.decode, current)
if not ok or type(record) ~= 'table' or record.state ~= 'running' or record.token ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * Idempotency keys in Redis, one string key per (scope, key) holding a JSON record. Every
 * decision is a single atomic command or script, so any number of API replicas can share
 * one Redis. Redis expires the records itself: a running record after its lock TTL, a done
 * record after its response TTL.
 */
export class RedisIdempotencyStore extends ClaimingIdempotencyStore {
  private readonly redis: Redis;
  private readonly ownsClient: boolean;

  /** A client passed in stays the caller's (close() leaves it open); a URL makes a client this store closes. */
  constructor(
    client: Redis | string,
    private readonly prefix = 'idem:',
  ) {
    super();
    this.ownsClient = typeof client === 'string';
    this.redis = typeof client === 'string' ? new Redis(client) : client;
  }

  protected async claim(scope: string, key: string, fingerprint: string, token: string, lockMs: number): Promise<boolean> {
    const running: RedisRecord = { state: 'running', fingerprint, token };
    return (await this.redis.set(this.redisKey(scope, key), JSON.stringify(running), 'PX', lockMs, 'NX')) === 'OK';
  }

  /** Null when the key expired or was released since the claim failed. */
  protected async readHeld(scope: string, key: string): Promise<HeldKey | null> {
    const redisKey = this.redisKey(scope, key);
    const current = await this.redis.get(redisKey);
    return current === null ? null : parseRecord(current, redisKey);
  }

  protected async storeResponse(scope: string, key: string, token: string, responseJson: string, ttlMs: number): Promise<void> {
    await this.redis.eval(COMPLETE_LUA, 1, this.redisKey(scope, key), token, responseJson, ttlMs);
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE_LUA, 1, this.redisKey(scope, key), token);
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** The scope is length-prefixed so that no (scope, key) pair can name another's key. */
  private redisKey(scope: string, key: string): string {
    return `${this.prefix}${scope.length}:${scope}:${key}`;
  }

  protected override describeKey(scope: string, key: string): string {
    return this.redisKey(scope, key);
  }
}

function parseRecord(text: string, redisKey: string): RedisRecord {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    record = undefined;
  }
  const r = record as Partial<RedisRecord> | undefined;
  if (!r || typeof r.fingerprint !== 'string' || (r.state !== 'running' && r.state !== 'done')) {
    throw new Error(`idempotency key ${redisKey} holds an unreadable record`);
  }
  return r as RedisRecord;
}
