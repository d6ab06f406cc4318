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
  clear(key: string): Promise<void>;
  /**
   * All or nothing: when every bucket is below its limit, adds one to each; otherwise adds to
   * none and answers when the latest full bucket's window ends.
   */
  take(buckets: readonly Bucket[], now: number): Promise<TakeResult>;
  close(): Promise<void>;
}

export const EMPTY_COUNTER: CounterState = Object.freeze({ count: 0, windowEndsAt: null, lockedUntil: null });
