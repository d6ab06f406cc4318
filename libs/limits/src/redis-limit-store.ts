import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { Bucket, CounterState, HitOptions, Ladder, LimitStore, ReserveResult, TakeResult } from './limit-store';

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

/**
 * The slots in flight of a counter are a sorted set beside it (KEYS[2], `<key>:holds`: the same
 * {hash tag}): member the hold's id, score when it expires (the caller's clock).
 * KEYS[1], KEYS[2]; ARGV now, holdMs, every, refuseFrom (-1: never), hold id.
 * Returns {outcome 1 reserved | 0 locked | 2 busy, count, lock or -1, slots in flight}.
 */
const RESERVE_LUA = `${COMMON}
local now, holdMs, every, refuseFrom, id = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local c, w, l = load(KEYS[1], now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', s(now))
local held = redis.call('ZCARD', KEYS[2])
if (l and l > now) or (refuseFrom >= 0 and c >= refuseFrom) then
  return {0, c, l and s(l) or '-1', held}
end
local step = (math.floor(c / every) + 1) * every
if refuseFrom >= 0 and step > refuseFrom then step = refuseFrom end
if c + held >= step then return {2, c, l and s(l) or '-1', held} end
redis.call('ZADD', KEYS[2], s(now + holdMs), id)
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[2], math.max(1, tonumber(last[2]) - now))
return {1, c, l and s(l) or '-1', held + 1}
`;

/**
 * KEYS[1], KEYS[2]; ARGV now, hold id ('' for none), keepMs (0: until cleared), every, then the
 * locks in ms. The hold freed, the failure counted and the lock of its step set, at once.
 * Returns {count, window end or -1, lock or -1}.
 */
const FAILED_LUA = `${COMMON}
local now, id, keepMs, every = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
if id ~= '' then redis.call('ZREM', KEYS[2], id) end
local c, w, l = load(KEYS[1], now)
c = c + 1
local steps = #ARGV - 4
if steps > 0 and c % every == 0 then
  l = math.max(l or 0, now + tonumber(ARGV[4 + math.min(c / every, steps)]))
end
local e = nil
if w or keepMs > 0 then e = math.max(w or 0, keepMs > 0 and (now + keepMs) or 0, l or 0) end
store(KEYS[1], now, c, w, l, e)
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

/** KEYS buckets; ARGV now. One less on each live window above 0 (a take given back). */
const GIVE_BACK_LUA = `${COMMON}
local now = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  local c, w = load(key, now)
  if c > 0 and w then store(key, now, c - 1, w, nil, w) end
end
return 1
`;

type Triple = [number, string, string];

/** The sorted set of a counter's slots in flight; the same {hash tag} as the counter, so one script can touch both. */
const holdsKey = (key: string): string => `${key}:holds`;

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

  async reserve(key: string, ladder: Ladder, holdMs: number, now: number): Promise<ReserveResult> {
    const hold = randomUUID();
    const [outcome, count, l, held] = (await this.redis.eval(RESERVE_LUA, 2, key, holdsKey(key), now, holdMs, ladder.every, ladder.refuseFrom ?? -1, hold)) as [number, number, string, number];
    const state: CounterState = { count: Number(count), windowEndsAt: null, lockedUntil: l === '-1' ? null : Number(l) };
    if (Number(outcome) === 1) return { outcome: 'reserved', hold, state };
    return Number(outcome) === 0 ? { outcome: 'locked', state } : { outcome: 'busy', state, inFlight: Number(held) };
  }

  async failed(key: string, hold: string | null, ladder: Ladder, now: number): Promise<CounterState> {
    return counter((await this.redis.eval(FAILED_LUA, 2, key, holdsKey(key), now, hold ?? '', ladder.keepMs ?? 0, ladder.every, ...ladder.locksMs)) as Triple);
  }

  async succeeded(key: string, hold: string | null): Promise<void> {
    const multi = this.redis.multi().del(key);
    if (hold !== null) multi.zrem(holdsKey(key), hold);
    const results = await multi.exec();
    const failure = results?.find(([error]) => error !== null);
    if (failure) throw failure[0];
  }

  async release(key: string, hold: string): Promise<void> {
    await this.redis.zrem(holdsKey(key), hold);
  }

  async take(buckets: readonly Bucket[], now: number): Promise<TakeResult> {
    const args = buckets.flatMap((b) => [b.limit, b.windowMs]);
    const answer = (await this.redis.eval(TAKE_LUA, buckets.length, ...buckets.map((b) => b.key), now, ...args)) as [number, string?];
    return Number(answer[0]) === 1 ? { taken: true } : { taken: false, retryAt: Number(answer[1]) };
  }

  async giveBack(keys: readonly string[], now: number): Promise<void> {
    for (const key of keys) await this.redis.eval(GIVE_BACK_LUA, 1, key, now); // one key a script: a bucket's keys need not share a slot
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}
