import { PeopleLimits } from '@lib/limits';
import type { Allowance } from '../ports';
import type { TwoStepCodeLimit } from '../two-factor/ports';
import { allowance } from './limits';

/**
 * TWO_STEP_CODE_LIMIT over libs/limits' PeopleLimits (decisions 0033, 0036): every 5th wrong
 * two-step code in a row locks the person's codes for 15 minutes, in Redis or the database
 * (shared by every process); a right code clears the count. An adapter only: the rule is theirs.
 */
export class LimitsTwoStepCodes implements TwoStepCodeLimit {
  constructor(private readonly limits: PeopleLimits) {}

  async check(accountId: string): Promise<Allowance> {
    return allowance(await this.limits.checkTwoStepCode(accountId));
  }

  async fail(accountId: string): Promise<void> {
    await this.limits.twoStepCodeFailed(accountId);
  }

  async clear(accountId: string): Promise<void> {
    await this.limits.twoStepCodeSucceeded(accountId);
  }
}
