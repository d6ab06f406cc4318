import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { RATE_LIMITS, type RateLimitRule } from './rules';

/**
 * The point a request took from a rule that counts only successful requests (`counts:
 * 'successful'`): what RateLimiter.refund needs to give it back to the window it came from.
 */
export interface SpentPoint {
  /** When the window the point was taken from ends, in epoch ms of this process's clock. */
  readonly windowEndsAt: number;
}

/**
 * Answer to one request. When refused, `retryAfterSec` is the `Retry-After` header value of
 * the 429 rate_limited response (whole seconds, at least 1). When allowed by a rule that counts
 * only successful requests, `spent` is the point taken (absent when the store failed and the
 * request was let through without one).
 */
export type RateLimitDecision =
  | { allowed: true; remaining: number; spent?: SpentPoint }
  | { allowed: false; retryAfterSec: number };

export interface RateLimiter {
  /**
   * Spends one request of `rule`'s budget for `subject` (an IP address or a business ID, as the
   * rule's `per` says). Rejects (never fails open) for an unknown rule name or an empty subject:
   * those are programming errors.
   */
  consume(rule: string, subject: string): Promise<RateLimitDecision>;
  /**
   * Gives back the point `consume` took (its decision's `spent`) for a request of a rule with
   * `counts: 'successful'` that turned out not to count (an error, a replay). Only to the window
   * the point came from: once that window has ended the point is gone with it, and nothing
   * changes. Atomic in the store, so replicas sharing it agree. Rejects (programming error) for
   * an unknown rule, an empty subject or a rule that counts every request; a store failure is
   * reported to `onError` and the point stays spent (never more than the budget gets through).
   */
  refund(rule: string, subject: string, spent: SpentPoint): Promise<void>;
  /** Releases the store connection if the limiter opened it. Safe to call twice. */
  close(): Promise<void>;
}

/** Context of a store failure: the rule and subject of the consume it hit, if any. */
export interface RateLimitErrorContext {
  rule?: string;
  subject?: string;
}

export type RateLimitErrorHandler = (error: Error, context: RateLimitErrorContext) => void;

export interface CreateRateLimiterOptions {
  /** Redis connection string (redis://host:port/db). The limiter owns and closes this client. */
  redisUrl?: string;
  /**
   * An existing ioredis client. The limiter uses it but never closes it. Configure it like the
   * rate-limiter-flexible docs say for ioredis: `enableOfflineQueue: false` (the limiter also
   * refuses to queue behind a client that is not ready, see `rejectIfRedisNotReady`).
   */
  redis?: Redis;
  /**
   * Prefix of every Redis key: `<prefix>:<rule name>:<subject>`. Replicas that must share a
   * budget use the same prefix; tests use a unique one. Default 'rate-limit'.
   */
  prefix?: string;
  /** Rules to enforce. Default: RATE_LIMITS (the spec's table). */
  rules?: readonly RateLimitRule[];
  /**
   * Called when the store fails (unreachable, too slow, refused command); the request that hit
   * the failure is allowed (fail open). Also called with connection errors of a client the
   * limiter opened itself (redisUrl). Default: writes the error to stderr.
   */
  onError?: RateLimitErrorHandler;
  /**
   * Longest a consume waits for Redis before failing open, in milliseconds (also bounds the
   * wait for the first connection after start-up). Default 500.
   */
  timeoutMs?: number;
}

const DEFAULT_PREFIX = 'rate-limit';
const DEFAULT_TIMEOUT_MS = 500;

const defaultOnError: RateLimitErrorHandler = (error, context) => {
  const where = context.rule ? ` (rule ${context.rule})` : '';
  console.error(`[rate-limit] store failure${where}, allowing the request: ${error.message}`);
};

/** `Retry-After` in whole seconds: never 0, which clients would read as "retry now". */
export function retryAfterSeconds(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}

/**
 * How far the end of a point's window, as reckoned when it was taken, may be from the end of the
 * subject's window now for the two to be the same window: a later window ends at least a whole
 * `durationSec` later, so half of it (at most 5 s) tells them apart whatever the round trips took.
 */
function sameWindowToleranceMs(rule: RateLimitRule): number {
  return Math.min(5_000, (rule.durationSec * 1000) / 2);
}

function validateRules(rules: readonly RateLimitRule[]): Map<string, RateLimitRule> {
  const byName = new Map<string, RateLimitRule>();
  for (const rule of rules) {
    if (!rule.name || typeof rule.name !== 'string') throw new Error('rate limit rule without a name');
    if (byName.has(rule.name)) throw new Error(`duplicate rate limit rule: ${rule.name}`);
    if (!Number.isInteger(rule.points) || rule.points < 1) {
      throw new Error(`rate limit rule ${rule.name}: points must be a positive integer`);
    }
    if (!Number.isInteger(rule.durationSec) || rule.durationSec < 1) {
      throw new Error(`rate limit rule ${rule.name}: durationSec must be a positive integer`);
    }
    if (rule.per !== 'ip' && rule.per !== 'business') {
      throw new Error(`rate limit rule ${rule.name}: per must be 'ip' or 'business'`);
    }
    if (rule.counts !== undefined && rule.counts !== 'every' && rule.counts !== 'successful') {
      throw new Error(`rate limit rule ${rule.name}: counts must be 'every' or 'successful'`);
    }
    byName.set(rule.name, rule);
  }
  return byName;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Both implementations: one rate-limiter-flexible limiter per rule ("enhanced fixed window":
 * the window starts at a subject's first request and `points` requests fit in it).
 *
 * Store failures fail OPEN: the request is allowed and `onError` is told. The limits protect
 * sign-in, sign-up and checkout creation against abuse; refusing every payment request because
 * the limiter's store blinked would turn a Redis hiccup into an outage of the payments API.
 * Only the limiter's own errors fail open; an unknown rule or empty subject still rejects.
 *
 * A rule that counts only successful requests (`counts: 'successful'`) takes its point on the way
 * in like any other (a reservation: concurrent requests cannot overspend) and gives it back with
 * `refund` when the request does not count. rate-limiter-flexible counts a refused request too
 * (the counter goes past `points`); for these rules that extra count is given back at once, so
 * that refunds of earlier points free the budget again.
 */
abstract class FlexibleRateLimiter implements RateLimiter {
  protected readonly rules: Map<string, RateLimitRule>;
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  protected readonly onError: RateLimitErrorHandler;

  protected constructor(
    rules: readonly RateLimitRule[],
    onError: RateLimitErrorHandler | undefined,
    build: (rule: RateLimitRule) => RateLimiterAbstract,
  ) {
    this.rules = validateRules(rules);
    this.onError = onError ?? defaultOnError;
    for (const rule of this.rules.values()) this.limiters.set(rule.name, build(rule));
  }

  async consume(ruleName: string, subject: string): Promise<RateLimitDecision> {
    const { rule, limiter } = this.ruleAndLimiter(ruleName, subject);

    try {
      const res = await this.spend(limiter, subject);
      if (rule.counts !== 'successful') return { allowed: true, remaining: res.remainingPoints };
      return { allowed: true, remaining: res.remainingPoints, spent: { windowEndsAt: Date.now() + res.msBeforeNext } };
    } catch (outcome) {
      // rate-limiter-flexible rejects with a RateLimiterRes when the budget is spent and with
      // an Error when the store failed.
      if (outcome instanceof RateLimiterRes) {
        // the refused request's own count, given back: it holds no point
        if (rule.counts === 'successful') await this.giveBackSafely(rule, limiter, subject, { windowEndsAt: Date.now() + outcome.msBeforeNext });
        return { allowed: false, retryAfterSec: retryAfterSeconds(outcome.msBeforeNext) };
      }
      this.report(asError(outcome), { rule: ruleName, subject });
      return { allowed: true, remaining: Math.max(0, rule.points - 1) };
    }
  }

  async refund(ruleName: string, subject: string, spent: SpentPoint): Promise<void> {
    const { rule, limiter } = this.ruleAndLimiter(ruleName, subject);
    if (rule.counts !== 'successful') throw new Error(`rate limit rule ${ruleName} counts every request: nothing to refund`);
    if (!spent || !Number.isFinite(spent.windowEndsAt)) throw new Error(`rate limit rule ${ruleName}: refund needs the point consume spent`);
    await this.giveBackSafely(rule, limiter, subject, spent);
  }

  abstract close(): Promise<void>;

  protected spend(limiter: RateLimiterAbstract, subject: string): Promise<RateLimiterRes> {
    return limiter.consume(subject, 1);
  }

  /**
   * Takes one from `subject`'s count if its window now is the one `spent` came from (its end
   * within sameWindowToleranceMs of `spent.windowEndsAt`) and the count is above 0; else nothing.
   */
  protected abstract giveBack(rule: RateLimitRule, limiter: RateLimiterAbstract, subject: string, spent: SpentPoint): Promise<void>;

  private async giveBackSafely(rule: RateLimitRule, limiter: RateLimiterAbstract, subject: string, spent: SpentPoint): Promise<void> {
    // the window has ended (or is about to): the point went with it
    if (spent.windowEndsAt <= Date.now()) return;
    try {
      await this.giveBack(rule, limiter, subject, spent);
    } catch (error) {
      this.report(asError(error), { rule: rule.name, subject });
    }
  }

  private ruleAndLimiter(ruleName: string, subject: string): { rule: RateLimitRule; limiter: RateLimiterAbstract } {
    const rule = this.rules.get(ruleName);
    const limiter = this.limiters.get(ruleName);
    if (!rule || !limiter) throw new Error(`unknown rate limit rule: ${ruleName}`);
    if (typeof subject !== 'string' || subject.length === 0) {
      throw new Error(`rate limit rule ${ruleName}: empty subject`);
    }
    return { rule, limiter };
  }

  protected report(error: Error, context: RateLimitErrorContext): void {
    try {
      this.onError(error, context);
    } catch {
      // A throwing error handler must not turn an allowed request into a failed one.
    }
  }
}

/** One process only: each replica counts on its own. For tests and single-instance runs. */
export class MemoryRateLimiter extends FlexibleRateLimiter {
  constructor(options: { rules?: readonly RateLimitRule[]; onError?: RateLimitErrorHandler } = {}) {
    super(
      options.rules ?? RATE_LIMITS,
      options.onError,
      (rule) => new RateLimiterMemory({ keyPrefix: rule.name, points: rule.points, duration: rule.durationSec }),
    );
  }

  async close(): Promise<void> {
    // Nothing to release: rate-limiter-flexible's memory timers are unref'd.
  }

  protected async giveBack(rule: RateLimitRule, limiter: RateLimiterAbstract, subject: string, spent: SpentPoint): Promise<void> {
    // get and reward touch one Map with nothing in between but microtasks; a window ending
    // within 100 ms is left alone, so it cannot end between the two (reward would then open a
    // new window below zero).
    const now = await limiter.get(subject);
    if (now === null || now.consumedPoints <= 0 || now.msBeforeNext < 100) return;
    if (Math.abs(Date.now() + now.msBeforeNext - spent.windowEndsAt) > sameWindowToleranceMs(rule)) return;
    await limiter.reward(subject, 1);
  }
}

/**
 * The refund on Redis, atomic: one off the count if the key's window is the point's (its pttl
 * within ARGV[2] ms of ARGV[1], the ms the caller reckons are left of the point's window) and the
 * count is above 0. A missing key (the window ended) or another window: nothing. DECR keeps the
 * key's expiry.
 */
const REFUND_SCRIPT = `
local ttl = redis.call('pttl', KEYS[1])
if ttl <= 0 then return 0 end
if math.abs(ttl - tonumber(ARGV[1])) > tonumber(ARGV[2]) then return 0 end
local consumed = tonumber(redis.call('get', KEYS[1]))
if consumed == nil or consumed <= 0 then return 0 end
redis.call('decr', KEYS[1])
return 1
`;

export interface RedisRateLimiterOptions {
  /** The client; see CreateRateLimiterOptions.redis. */
  client: Redis;
  /** True when this limiter created the client and so must close it. */
  ownsClient?: boolean;
  prefix?: string;
  rules?: readonly RateLimitRule[];
  onError?: RateLimitErrorHandler;
  timeoutMs?: number;
}

/**
 * Shared by every replica using the same Redis and prefix: rate-limiter-flexible increments
 * the counter and sets its expiry in one Lua script (atomic), so concurrent requests on several
 * replicas never overspend a budget. Keys: `<prefix>:<rule>:<subject>`, expiring with the window.
 */
export class RedisRateLimiter extends FlexibleRateLimiter {
  private readonly client: Redis;
  private readonly ownsClient: boolean;
  private readonly timeoutMs: number;
  /** Settles when the client's first connection attempt ends (ready or failed). */
  private readonly firstConnection: Promise<void>;
  private firstConnectionSettled = false;
  private closed = false;

  constructor(options: RedisRateLimiterOptions) {
    const prefix = options.prefix ?? DEFAULT_PREFIX;
    if (!prefix || prefix.includes('*')) throw new Error(`invalid rate limit key prefix: ${prefix}`);
    super(
      options.rules ?? RATE_LIMITS,
      options.onError,
      (rule) =>
        new RateLimiterRedis({
          // ioredis is rate-limiter-flexible's default client: no useRedisPackage (that is for
          // the `redis` package v4+).
          storeClient: options.client,
          keyPrefix: `${prefix}:${rule.name}`,
          points: rule.points,
          duration: rule.durationSec,
          // Reject at once (and so fail open) while the connection is down, instead of queueing
          // commands behind a reconnect.
          rejectIfRedisNotReady: true,
          // Once a subject has spent its budget, answer its further requests from this
          // process's memory until the window ends (the end comes from Redis, so replicas
          // agree): a flood from one address costs no Redis round trips. Not for a rule that
          // counts only successful requests: a refund (on any replica) frees its budget again
          // before the window ends, which a block held in one process's memory would not see.
          ...(rule.counts === 'successful' ? {} : { inMemoryBlockOnConsumed: rule.points }),
        }),
    );
    this.client = options.client;
    this.ownsClient = options.ownsClient ?? false;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(this.timeoutMs > 0)) throw new Error('timeoutMs must be positive');

    if (this.ownsClient) {
      // Without a listener ioredis prints every reconnect failure itself; route them to onError.
      this.client.on('error', (error: Error) => this.report(error, {}));
    }
    this.firstConnection = this.watchFirstConnection();
  }

  /**
   * rejectIfRedisNotReady makes requests fail open while the client is not ready. Right after
   * start-up the client is still connecting, which is not an outage: requests wait (at most
   * timeoutMs) for that first attempt to finish. Later disconnects fail open at once.
   */
  private watchFirstConnection(): Promise<void> {
    const status = this.client.status;
    if (status === 'ready' || status === 'end' || status === 'close' || status === 'reconnecting') {
      this.firstConnectionSettled = true;
      return Promise.resolve();
    }
    if (status === 'wait') {
      // lazyConnect client: nothing connects it if no command is sent, so connect now.
      this.client.connect().catch(() => undefined);
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        this.client.off('ready', done);
        this.client.off('close', done);
        this.client.off('end', done);
        this.firstConnectionSettled = true;
        resolve();
      };
      this.client.on('ready', done);
      this.client.on('close', done);
      this.client.on('end', done);
    });
  }

  protected override spend(limiter: RateLimiterAbstract, subject: string): Promise<RateLimiterRes> {
    return this.withinTimeout(() => limiter.consume(subject, 1));
  }

  protected async giveBack(rule: RateLimitRule, limiter: RateLimiterAbstract, subject: string, spent: SpentPoint): Promise<void> {
    const key = limiter.getKey(subject);
    const leftMs = spent.windowEndsAt - Date.now();
    await this.withinTimeout(async () => {
      // as consume (rejectIfRedisNotReady): never queued behind a reconnect
      if (this.client.status !== 'ready') throw new Error('Redis connection is not ready');
      return this.client.eval(REFUND_SCRIPT, 1, key, String(Math.round(leftMs)), String(sameWindowToleranceMs(rule)));
    });
  }

  /** `command`, after the first connection attempt, failing after timeoutMs (the store then counts as failed). */
  private async withinTimeout<T>(command: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`rate limit store did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      const answer = (async () => {
        if (!this.firstConnectionSettled) await this.firstConnection;
        return command();
      })();
      // If the deadline wins, the late answer or failure is dropped, not left unhandled.
      answer.catch(() => undefined);
      return await Promise.race([answer, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.ownsClient) return;
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // fall through to a hard disconnect
      }
    }
    this.client.disconnect();
  }
}

/**
 * The limiter for this deployment: Redis-backed (shared by all replicas) when `redisUrl` or
 * `redis` is given, in-process memory otherwise.
 */
export function createRateLimiter(options: CreateRateLimiterOptions = {}): RateLimiter {
  const { redisUrl, redis, prefix, rules, onError, timeoutMs } = options;
  if (redisUrl && redis) throw new Error('give either redisUrl or redis, not both');
  if (redis) {
    return new RedisRateLimiter({ client: redis, ownsClient: false, prefix, rules, onError, timeoutMs });
  }
  if (redisUrl) {
    const client = new Redis(redisUrl, {
      // As rate-limiter-flexible's docs configure ioredis: fail commands at once while
      // disconnected rather than queueing them (the limiter then fails open).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 5_000,
      // close() disconnects a client that is not ready by ending its socket; ioredis then
      // waits this long for the socket to close before destroying it (default 2 s, which also
      // lingers as a timer after closing a client that was between reconnect attempts).
      disconnectTimeout: 100,
    });
    return new RedisRateLimiter({ client, ownsClient: true, prefix, rules, onError, timeoutMs });
  }
  return new MemoryRateLimiter({ rules, onError });
}
