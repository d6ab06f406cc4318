import type { Allowance } from '../ports';

/**
 * Wrong two-step codes per person (spec §8: 5 wrong codes across all challenges lock codes for
 * 15 minutes; decision 0036). `check` before a code is checked (429 too_many_attempts with
 * Retry-After while locked), `fail` after a wrong one, `clear` after a right one. Bound to
 * libs/limits' PeopleLimits (checkTwoStepCode, twoStepCodeFailed, twoStepCodeSucceeded) where
 * that is available, else to the in-memory stand-in.
 */
export const TWO_STEP_CODE_LIMIT = Symbol('TWO_STEP_CODE_LIMIT');
export interface TwoStepCodeLimit {
  check(accountId: string): Promise<Allowance>;
  fail(accountId: string): Promise<void>;
  clear(accountId: string): Promise<void>;
}
