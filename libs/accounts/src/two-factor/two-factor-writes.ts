import { Injectable } from '@nestjs/common';
import { RunResult, WriteMeta, metadataFor } from '@lib/eventstore';
import { AccountStreams } from '../app/account-writes';
import { ACCOUNT_STREAM, TWO_FACTOR_CHALLENGE_STREAM } from '../stream-categories';
import type { TwoFactorChallengeEvent } from './events';
import { TwoFactorChallengeCommand, TwoFactorChallengeState, TwoFactorCommand, TwoFactorState, TwoFactorStreamEvent, twoFactorChallengeDecider, twoFactorDecider } from './two-factor.decider';
import { challengeHash } from './totp';

/**
 * What the two-step use cases share (decision 0036): deciding on the person's stream with
 * twoFactorDecider and on a challenge's stream, through AccountStreams (retried on conflicts),
 * with the accounts clock as `now`; and reading those states. Nothing of these streams is
 * projected, so no write waits for read models.
 */
@Injectable()
export class TwoFactorWrites {
  constructor(private readonly streams: AccountStreams) {}

  now(): Date {
    return this.streams.now();
  }

  async decide(accountId: string, command: TwoFactorCommand, meta: WriteMeta): Promise<RunResult<TwoFactorStreamEvent, TwoFactorState>> {
    return this.streams.run(twoFactorDecider, ACCOUNT_STREAM.stream(accountId), command, { context: { now: this.now() }, metadata: metadataFor(meta), waitForReadModels: false });
  }

  async challenge(challengeId: string, command: TwoFactorChallengeCommand, meta: WriteMeta): Promise<RunResult<TwoFactorChallengeEvent, TwoFactorChallengeState>> {
    const stream = TWO_FACTOR_CHALLENGE_STREAM.stream(challengeHash(challengeId));
    return this.streams.run(twoFactorChallengeDecider, stream, command, { context: { now: this.now() }, metadata: metadataFor(meta), waitForReadModels: false, newStream: command.type === 'StartTwoFactorChallenge' });
  }

  async state(accountId: string): Promise<TwoFactorState> {
    return this.streams.state(twoFactorDecider, ACCOUNT_STREAM.stream(accountId));
  }

  async challengeState(challengeId: string): Promise<TwoFactorChallengeState> {
    return this.streams.state(twoFactorChallengeDecider, TWO_FACTOR_CHALLENGE_STREAM.stream(challengeHash(challengeId)));
  }
}
