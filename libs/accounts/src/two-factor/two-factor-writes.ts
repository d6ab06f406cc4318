import { Inject, Injectable } from '@nestjs/common';
import { foldWith } from '@lib/domain';
import { CommandRunner, EVENT_STORE, EventStore, RecordedEvent, RunResult, StreamNotFoundError, WriteMeta, metadataFor } from '@lib/eventstore';
import { withRetryAfter } from '../app/account-writes';
import { ACCOUNTS_CLOCK, AccountsClock } from '../ports';
import { ACCOUNT_STREAM, TWO_FACTOR_CHALLENGE_STREAM } from '../stream-categories';
import type { TwoFactorChallengeEvent, TwoFactorEvent } from './events';
import { TwoFactorChallengeCommand, TwoFactorChallengeState, TwoFactorCommand, TwoFactorState, twoFactorChallengeDecider, twoFactorDecider } from './two-factor.decider';
import { challengeHash } from './totp';

/**
 * What the two-step use cases share (decision 0036): deciding on the person's stream with
 * twoFactorDecider and on a challenge's stream, through the CommandRunner (retried on conflicts),
 * with the accounts clock as `now`; and reading those states. Nothing of these streams is
 * projected, so no write waits for read models.
 */
@Injectable()
export class TwoFactorWrites {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCOUNTS_CLOCK) private readonly clock: AccountsClock,
  ) {}

  now(): Date {
    return this.clock();
  }

  async decide(accountId: string, command: TwoFactorCommand, meta: WriteMeta): Promise<RunResult<TwoFactorEvent, TwoFactorState>> {
    return this.guarded(() => this.runner.run(twoFactorDecider, ACCOUNT_STREAM.stream(accountId), command, { context: { now: this.now() }, metadata: metadataFor(meta), waitForReadModels: false }));
  }

  async challenge(challengeId: string, command: TwoFactorChallengeCommand, meta: WriteMeta): Promise<RunResult<TwoFactorChallengeEvent, TwoFactorChallengeState>> {
    const stream = TWO_FACTOR_CHALLENGE_STREAM.stream(challengeHash(challengeId));
    return this.guarded(() => this.runner.run(twoFactorChallengeDecider, stream, command, { context: { now: this.now() }, metadata: metadataFor(meta), waitForReadModels: false, newStream: command.type === 'StartTwoFactorChallenge' }));
  }

  async state(accountId: string): Promise<TwoFactorState> {
    return foldWith(twoFactorDecider, await this.read(ACCOUNT_STREAM.stream(accountId)));
  }

  async challengeState(challengeId: string): Promise<TwoFactorChallengeState> {
    return foldWith(twoFactorChallengeDecider, await this.read(TWO_FACTOR_CHALLENGE_STREAM.stream(challengeHash(challengeId))));
  }

  private async guarded<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw withRetryAfter(error);
    }
  }

  private async read(stream: string): Promise<RecordedEvent[]> {
    try {
      return await this.store.readStream(stream);
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }
}
