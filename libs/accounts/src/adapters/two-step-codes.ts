import { PeopleLimits } from '@lib/limits';
import type { TwoStepCodeGate, TwoStepCodeLimit } from '../two-factor/ports';
import { limitedAttempt } from './limits';

/**
 * TWO_STEP_CODE_LIMIT over libs/limits' PeopleLimits (decisions 0033, 0036): every 5th wrong
 * two-step code in a row locks the person's codes for 15 minutes, in Redis or the database
 * (shared by every process), with at most the wrong codes left before the lock in flight at
 * once; a right code clears the count. An adapter only: the rule is theirs.
 */
export class LimitsTwoStepCodes implements TwoStepCodeLimit {
  constructor(private readonly limits: PeopleLimits) {}

  async reserve(accountId: string): Promise<TwoStepCodeGate> {
    const decision = await this.limits.twoStepCodes.reserve(accountId);
    return decision.allowed ? { allowed: true, attempt: limitedAttempt(decision.attempt) } : { allowed: false, retryAfterSec: decision.retryAfterSec ?? 1 };
  }
}
