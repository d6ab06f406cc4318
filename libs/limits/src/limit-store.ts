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
 * A ladder of locks (decision 0033): every `every`-th failure in a row locks the counter, for
 * `locksMs[i]` after the (i+1)-th such step (the last for every step after). `refuseFrom`: from
 * this count on every attempt is refused (the password disabled until a reset).
 */
export interface Ladder {
  every: number;
  locksMs: readonly number[];
  /** A streak is forgotten this long after its last failure. Absent: kept until cleared. */
  keepMs?: number;
  refuseFrom?: number;
}

/** The lock (ms) that the `count`-th failure in a row starts on `ladder`, or null. */
export function ladderLockMs(ladder: Pick<Ladder, 'every' | 'locksMs'>, count: number): number | null {
  if (count <= 0 || count % ladder.every !== 0 || ladder.locksMs.length === 0) return null;
  return ladder.locksMs[Math.min(count / ladder.every, ladder.locksMs.length) - 1];
}

/**
 * The failure count at which the counter's next lock (or its refusal) starts: the attempts in
 * flight plus the failures may never reach past it, so concurrent guesses cannot outrun a lock.
 */
export function nextLadderStep(ladder: Pick<Ladder, 'every' | 'refuseFrom'>, count: number): number {
  const step = (Math.floor(count / ladder.every) + 1) * ladder.every;
  return ladder.refuseFrom === undefined ? step : Math.min(step, ladder.refuseFrom);
}

/**
 * A reservation's answer. `locked`: the counter is locked or at `refuseFrom` (nothing held).
 * `busy`: every attempt left before the next lock is already in flight (nothing held; try again
 * shortly). `reserved`: a slot is held under `hold` until `failed`, `succeeded` or `release`
 * (or until it expires: a process that died does not hold it forever).
 */
export type ReserveResult =
  | { outcome: 'reserved'; hold: string; state: CounterState }
  | { outcome: 'locked'; state: CounterState }
  | { outcome: 'busy'; state: CounterState; inFlight: number };

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
   * Before an attempt judged by a ladder (a password, a two-step code), in one atomic step:
   * refused while locked or at `refuseFrom`; otherwise a slot, held until `now + holdMs`, only
   * while failures + slots held stay below `nextLadderStep` — else busy. Checking first and
   * counting after the slow verification let concurrent guesses all pass before the first was
   * counted (decision 0033, addendum of 2026-11-28); correct attempts are never counted.
   */
  reserve(key: string, ladder: Ladder, holdMs: number, now: number): Promise<ReserveResult>;
  /**
   * A wrong answer: frees `hold` (when given) and counts the failure, locking the counter when it
   * is a step of the ladder — in the same atomic step. Answers the counter after.
   */
  failed(key: string, hold: string | null, ladder: Ladder, now: number): Promise<CounterState>;
  /** A right answer: frees `hold` (when given) and clears the counter; other slots stay held. */
  succeeded(key: string, hold: string | null): Promise<void>;
  /** An attempt that ended otherwise: frees `hold`, counts nothing. */
  release(key: string, hold: string): Promise<void>;
  /**
   * All or nothing: when every bucket is below its limit, adds one to each; otherwise adds to
   * none and answers when the latest full bucket's window ends.
   */
  take(buckets: readonly Bucket[], now: number): Promise<TakeResult>;
  /**
   * Gives back one take of each key (a request that took its budgets and then ended refused
   * without sending: "a refusal claims nothing", decisions 0035/0038, addendum of 2026-11-29):
   * one less on every counter whose window is still running and above 0; an ended window (a new
   * one starts empty) is left alone.
   */
  giveBack(keys: readonly string[], now: number): Promise<void>;
  close(): Promise<void>;
}

export const EMPTY_COUNTER: CounterState = Object.freeze({ count: 0, windowEndsAt: null, lockedUntil: null });
