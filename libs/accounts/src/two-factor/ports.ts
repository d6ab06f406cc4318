import type { LimitedAttempt } from '../ports';

/**
 * Wrong two-step codes per person (spec §8: 5 wrong codes across all challenges lock codes for
 * 15 minutes; decisions 0033, 0036). `reserve` before a code is checked: 429 too_many_attempts
 * with Retry-After while locked (or while every slot left before the lock stays in flight:
 * Retry-After 1), else a slot to end once the code is judged — `failed` for a wrong one,
 * `succeeded` for a right one, `release` otherwise — so concurrent wrong codes never outnumber
 * the 5. Bound to libs/limits' PeopleLimits (twoStepCodes.reserve).
 */
export const TWO_STEP_CODE_LIMIT = Symbol('TWO_STEP_CODE_LIMIT');
export type TwoStepCodeGate = { allowed: true; attempt: LimitedAttempt } | { allowed: false; retryAfterSec: number };
export interface TwoStepCodeLimit {
  reserve(accountId: string): Promise<TwoStepCodeGate>;
}
