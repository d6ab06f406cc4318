import { Inject, Injectable } from '@nestjs/common';
import { Decider, DomainRefusal, foldWith } from '@lib/domain';
import { CommandRunner, EVENT_STORE, EventStore, RecordedEvent, RunResult, StreamNotFoundError, WriteMeta, metadataFor } from '@lib/eventstore';
import { ApiError } from '@lib/http';
import { AccountCommand, AccountEmailCommand, AccountEmailState, AccountState, accountDecider, accountEmailDecider } from '../account.decider';
import type { AccountEmailEvent, AccountEvent, SignupEvent } from '../events';
import { ACCOUNTS_CLOCK, AccountsClock } from '../ports';
import { SignupCommand, SignupState, signupDecider } from '../signup.decider';
import { ACCOUNT_EMAIL_STREAM, ACCOUNT_STREAM, SIGNUP_STREAM } from '../stream-categories';
import { emailFingerprint } from './secrets';

/** A refusal carrying `retry_after` (seconds) becomes the API error with its Retry-After header. */
export function withRetryAfter(error: unknown): unknown {
  if (error instanceof DomainRefusal && !(error instanceof ApiError) && typeof error.details.retry_after === 'number') {
    const seconds = error.details.retry_after;
    return new ApiError(error.code, error.message, error.field, { 'retry-after': String(seconds) });
  }
  return error;
}

/** A 429 with Retry-After. */
export const retryLater = (code: 'too_many_attempts' | 'too_many_emails', message: string, seconds: number) => new ApiError(code, message, null, { 'retry-after': String(Math.max(1, seconds)) });

/**
 * What the account use cases share (decision 0034): deciding on a person's, an address's or a
 * sign-up's stream through the CommandRunner (retried on conflicts, read models waited for),
 * with the injected clock as the deciders' `now`; and reading those streams' states.
 */
@Injectable()
export class AccountWrites {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCOUNTS_CLOCK) readonly clock: AccountsClock,
  ) {}

  now(): Date {
    return this.clock();
  }

  async account(accountId: string, command: AccountCommand | ((state: AccountState) => AccountCommand), meta: WriteMeta, newStream = false): Promise<RunResult<AccountEvent, AccountState>> {
    return this.guarded(() => this.runner.run(accountDecider, ACCOUNT_STREAM.stream(accountId), command, { context: undefined, metadata: metadataFor(meta), newStream }));
  }

  async email(email: string, command: AccountEmailCommand, meta: WriteMeta): Promise<RunResult<AccountEmailEvent, AccountEmailState>> {
    return this.guarded(() => this.runner.run(accountEmailDecider, ACCOUNT_EMAIL_STREAM.stream(emailFingerprint(email)), command, { context: undefined, metadata: metadataFor(meta), waitForReadModels: false }));
  }

  async signup(signupId: string, command: SignupCommand | ((state: SignupState) => SignupCommand), meta: WriteMeta, newStream = false): Promise<RunResult<SignupEvent, SignupState>> {
    return this.guarded(() =>
      this.runner.run(signupDecider, SIGNUP_STREAM.stream(signupId), command, { context: { now: this.now() }, metadata: metadataFor(meta), newStream, waitForReadModels: false }),
    );
  }

  async signupState(signupId: string): Promise<SignupState> {
    return foldWith(signupDecider, await this.read(SIGNUP_STREAM.stream(signupId)));
  }

  async emailState(email: string): Promise<AccountEmailState> {
    return foldWith(accountEmailDecider, await this.read(ACCOUNT_EMAIL_STREAM.stream(emailFingerprint(email))));
  }

  async accountState(accountId: string): Promise<AccountState> {
    return foldWith(accountDecider as Decider<AccountCommand, AccountEvent, AccountState>, await this.read(ACCOUNT_STREAM.stream(accountId)));
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
