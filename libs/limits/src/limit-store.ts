/**
 * The primitives every per person / address / code limit is made of (decision 0033). Each call is
 * atomic in the store (one SQL statement or transaction with row locks; one Redis Lua script),
 * so concurrent requests on any number of processes all count. Times are milliseconds since the
 * epoch from the caller's clock: the stores never read their own.
 */
export interface CounterState {
  /** Hits in the current window (or streak); 0 for a counter never hit, cleared or forgotten. */
  count: number;
  /** End of the current fixed window; null for a streak or a fresh counter. */
  windowEndsAt: number | null;
  /** The counter's lock, if one was set and not forgotten (may be in the past). */
  lockedUntil: number | null;
}

export interface HitOptions {
  /** A fixed window: the first hit after it ended starts a new one at count 1. Absent: a streak. */
  windowMs?: number;
  /** A streak is forgotten this long after its last hit. Absent: kept until cleared. */
  keepMs?: number;
}

/**
 * A ladder of locks (decision 0033; the race of decision 0033's addendum of 2026-11-28): every
 * `every`-th attempt in a row locks the counter, for `locksMs[i]` after the (i+1)-th such step
 * (the last for every step after). `refuseFrom`: from this count on, every attempt is refused.
 */
export interface LadderOptions {
  every: number;
  locksMs: readonly number[];
  /** A streak is forgotten this long after its last attempt. Absent: kept until cleared. */
  keepMs?: number;
  refuseFrom?: number;
}

/**
 * An attempt taken on a ladder: refused, without counting, while the counter is locked (or at
 * `refuseFrom`); otherwise counted at once (as a failure until the caller clears the counter)
 * and, when it is a step of the ladder, locking the counter in the same atomic operation — so
 * concurrent attempts can never pass a lock that an earlier one should have set.
 */
export interface AttemptResult {
  allowed: boolean;
  /** The counter after the attempt (allowed) or as it stood (refused). */
  state: CounterState;
}

/** The lock (ms) that the `count`-th attempt in a row starts on `ladder`, or null. */
export function ladderLockMs(ladder: Pick<LadderOptions, 'every' | 'locksMs'>, count: number): number | null {
  if (count <= 0 || count % ladder.every !== 0 || ladder.locksMs.length === 0) return null;
  return ladder.locksMs[Math.min(count / ladder.every, ladder.locksMs.length) - 1];
}

export interface Bucket {
  key: string;
  /** Takes allowed per window. */
  limit: number;
  windowMs: number;
}

export type TakeResult = { taken: true } | { taken: false; retryAt: number };

export interface LimitStore {
  /** Adds one to the counter and answers its state after. */
  hit(key: string, options: HitOptions, now: number): Promise<CounterState>;
  /** Locks a live counter until at least `until` (a later lock is kept). */
  lock(key: string, until: number, now: number): Promise<void>;
  read(key: string, now: number): Promise<CounterState>;
  /** One attempt on a ladder of locks, decided and counted atomically (AttemptResult). */
  attempt(key: string, ladder: LadderOptions, now: number): Promise<AttemptResult>;
  clear(key: string): Promise<void>;
  /**
   * All or nothing: when every bucket is below its limit, adds one to each; otherwise adds to
   * none and answers when the latest full bucket's window ends.
   */
  take(buckets: readonly Bucket[], now: number): Promise<TakeResult>;
  close(): Promise<void>;
}

export const EMPTY_COUNTER: CounterState = Object.freeze({ count: 0, windowEndsAt: null, lockedUntil: null });
