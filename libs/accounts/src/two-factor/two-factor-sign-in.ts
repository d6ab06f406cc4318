import { Injectable } from '@nestjs/common';
import type { WriteMeta } from '@lib/eventstore';
import { TwoFactorWrites } from './two-factor-writes';
import { newChallengeId } from './totp';
import { TwoFactorChallengeView } from './views';

/**
 * The password step of sign-in for a person with two-step sign-in on (decision 0036): instead of
 * a session, a challenge (5 minutes, answered once at POST /sessions/two-factor). SignInHandler
 * asks it after the password matched.
 */
@Injectable()
export class TwoFactorSignIn {
  constructor(private readonly writes: TwoFactorWrites) {}

  /** A new challenge when the person has two-step sign-in on, else null (the session starts at once). */
  async challengeIfEnabled(accountId: string, meta: WriteMeta): Promise<TwoFactorChallengeView | null> {
    const state = await this.writes.state(accountId);
    if (state.enabled === null) return null;
    const id = newChallengeId();
    const result = await this.writes.challenge(id, { type: 'StartTwoFactorChallenge', accountId }, meta);
    return { kind: 'two_factor_challenge', id, expires_at: result.state.challenge!.expiresAt };
  }
}
