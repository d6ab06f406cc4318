import { Injectable } from '@nestjs/common';
import type { WriteMeta } from '@lib/eventstore';
import { TwoFactorWrites } from './two-factor-writes';
import { newChallengeId } from './totp';
import { TwoFactorChallengeView } from './views';

/**
 * The password step of sign-in for a person with two-step sign-in on (decision 0036): instead of
 * a session, a challenge (5 minutes, answered once at POST /sessions/two-factor). SignInHandler
 * reads the person's credentials version while it checks the password, and asks for the
 * challenge after the password matched: the challenge records that version, so a password
 * change or reset (or an undone e-mail change) landing since voids it (addendum of 2026-11-29).
 */
@Injectable()
export class TwoFactorSignIn {
  constructor(private readonly writes: TwoFactorWrites) {}

  /** The person's credentials version now: read while the password is checked, no later. */
  async credentialsVersion(accountId: string): Promise<number> {
    return (await this.writes.state(accountId)).credentialsVersion;
  }

  /** A new challenge when the person has two-step sign-in on, else null (the session starts at once); `credentialsVersion` as read while the password was checked. */
  async challengeIfEnabled(accountId: string, credentialsVersion: number, meta: WriteMeta): Promise<TwoFactorChallengeView | null> {
    const state = await this.writes.state(accountId);
    if (state.enabled === null) return null;
    const id = newChallengeId();
    const result = await this.writes.challenge(id, { type: 'StartTwoFactorChallenge', accountId, credentialsVersion }, meta);
    return { kind: 'two_factor_challenge', id, expires_at: result.state.challenge!.expiresAt };
  }
}
