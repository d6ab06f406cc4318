import Redis from 'ioredis';
import { Bucket, CounterState, HitOptions, LimitStore, TakeResult } from './limit-store';

/**
 * Each counter is a hash: c (count), w (window end), l (lock), e (forgotten at; absent = kept
 * until cleared). Times are the caller's (ARGV), so tests move time; the key's Redis expiry
 * (relative, from the same clock) only collects garbage. Numbers are written with %.0f: Lua's
 * default %.14g would round times in milliseconds.
 */
const COMMON = `
local function s(n) return string.format('%.0f', n) end
local function load(key, now)
  local h = redis.call('HMGET', key, 'c', 'w', 'l', 'e')
  local c, w, l, e = tonumber(h[1]) or 0, tonumber(h[2]), tonumber(h[3]), tonumber(h[4])
  if e and e <= now then return 0, nil, nil end
  if w and w <= now then return 0, nil, l end
  return c, w, l
end
local function store(key, now, c, w, l, e)
  redis.call('DEL', key)
  local fields = {'c', s(c)}
  if w then table.insert(fields, 'w'); table.insert(fields, s(w)) end
  if l then table.insert(fields, 'l'); table.insert(fields, s(l)) end
  if e then table.insert(fields, 'e'); table.insert(fields, s(e)) end
  redis.call('HSET', key, unpack(fields))
  if e then redis.call('PEXPIRE', key, math.max(1, e - now)) end
end
`;

/** KEYS[1]; ARGV now, windowMs (0: streak), keepMs (0: until cleared). Returns {count, window end or -1, lock or -1}. */
const HIT_LUA = `${COMMON}
local now, windowMs, keepMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local c, w, l = load(KEYS[1], now)
c = c + 1
if windowMs > 0 and not w then w = now + windowMs end
local e = nil
if w or keepMs > 0 then
  e = math.max(w or 0, keepMs > 0 and (now + keepMs) or 0, l or 0)
end
store(KEYS[1], now, c, w, l, e)
return {c, w and s(w) or '-1', l and s(l) or '-1'}
`;

/** KEYS[1]; ARGV now, until. Only a live counter is locked. */
const LOCK_LUA = `${COMMON}
local now, untilMs = tonumber(ARGV[1]), tonumber(ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local h = redis.call('HMGET', KEYS[1], 'l', 'e')
local l, e = tonumber(h[1]), tonumber(h[2])
if e and e <= now then return 0 end
redis.call('HSET', KEYS[1], 'l', s(math.max(l or 0, untilMs)))
if e and untilMs > e then
  redis.call('HSET', KEYS[1], 'e', s(untilMs))
  redis.call('PEXPIRE', KEYS[1], math.max(1, untilMs - now))
end
return 1
`;

/** KEYS[1]; ARGV now. Returns {count, window end or -1, lock or -1}. */
const READ_LUA = `${COMMON}
local c, w, l = load(KEYS[1], tonumber(ARGV[1]))
return {c, w and s(w) or '-1', l and s(l) or '-1'}
`;

/** KEYS buckets; ARGV now, then limit and windowMs per bucket. Returns {1} or {0, retryAt}. */
const TAKE_LUA = `${COMMON}
local now = tonumber(ARGV[1])
local states = {}
local retryAt = nil
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[2 * i])
  local c, w = load(key, now)
  states[i] = {c, w}
  if c >= limit then retryAt = math.max(retryAt or 0, w or now) end
end
if retryAt then return {0, s(retryAt)} end
for i, key in ipairs(KEYS) do
  local windowMs = tonumber(ARGV[2 * i + 1])
  local w = states[i][2] or (now + windowMs)
  store(key, now, states[i][1] + 1, w, nil, w)
end
return {1}
`;

type Triple = [number, string, string];

const counter = ([count, w, l]: Triple): CounterState => ({
  count: Number(count),
  windowEndsAt: w === '-1' ? null : Number(w),
  lockedUntil: l === '-1' ? null : Number(l),
});

/**
 * The limits in Redis, shared by every replica using the same Redis and prefix. Every operation
 * is one Lua script, so concurrent hits all count. A client passed in stays the caller's; a URL
 * makes a client this store closes.
 */
export class RedisLimitStore implements LimitStore {
  private readonly redis: Redis;
  private readonly ownsClient: boolean;

  constructor(client: Redis | string) {
    this.ownsClient = typeof client === 'string';
    // disconnectTimeout: see @lib/rate-limit (ioredis's 2 s default lingers after closing a client between reconnects)
    this.redis = typeof client === 'string' ? new Redis(client, { maxRetriesPerRequest: 2, connectTimeout: 5_000, disconnectTimeout: 100 }) : client;
    // Connection errors reach the callers as rejected operations; without a listener ioredis would also print each reconnect failure.
    if (this.ownsClient) this.redis.on('error', () => undefined);
  }

  async hit(key: string, options: HitOptions, now: number): Promise<CounterState> {
    return counter((await this.redis.eval(HIT_LUA, 1, key, now, options.windowMs ?? 0, options.keepMs ?? 0)) as Triple);
  }

  async lock(key: string, until: number, now: number): Promise<void> {
    await this.redis.eval(LOCK_LUA, 1, key, now, until);
  }

  async read(key: string, now: number): Promise<CounterState> {
    return counter((await this.redis.eval(READ_LUA, 1, key, now)) as Triple);
  }

  async clear(key: string): Promise<void> {
    await this.redis.del(key);
  }

  async take(buckets: readonly Bucket[], now: number): Promise<TakeResult> {
    const args = buckets.flatMap((b) => [b.limit, b.windowMs]);
    const answer = (await this.redis.eval(TAKE_LUA, buckets.length, ...buckets.map((b) => b.key), now, ...args)) as [number, string?];
    return Number(answer[0]) === 1 ? { taken: true } : { taken: false, retryAt: Number(answer[1]) };
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}
