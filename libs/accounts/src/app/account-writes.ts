import { Inject, Injectable } from '@nestjs/common';
import { Decider, DomainEvent, DomainRefusal } from '@lib/domain';
import { CommandRunner, RunResult, WriteMeta, metadataFor } from '@lib/eventstore';
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

/** A write's hooks around its append (RunOptions): what the attempt about to append decided, and what only a successful append may do. */
export interface AppendHooks<Event, State> {
  beforeAppend?: (events: readonly Event[], state: State) => Promise<void>;
  afterAppend?: () => Promise<void>;
}

export function appendHooks<Event, State>(hooks: AppendHooks<Event, State>): AppendHooks<Event, State> {
  return { beforeAppend: hooks.beforeAppend, afterAppend: hooks.afterAppend && (() => hooks.afterAppend!()) };
}

/** A 429 with Retry-After. */
export const retryLater = (code: 'too_many_attempts' | 'too_many_emails', message: string, seconds: number) => new ApiError(code, message, null, { 'retry-after': String(Math.max(1, seconds)) });

/**
 * The one write helper of the accounts capability's streams (decision 0034): a decision through
 * the CommandRunner (retried on conflicts; a refusal with `retry_after` becomes the API error
 * with Retry-After), a stream's state folded from its events (none yet: the initial state), and
 * the injected clock the deciders take as `now`. AccountWrites, TwoFactorWrites and
 * RecoveryWrites name their deciders and streams over it.
 */
@Injectable()
export class AccountStreams {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(ACCOUNTS_CLOCK) private readonly clock: AccountsClock,
  ) {}

  now(): Date {
    return this.clock();
  }

  /** CommandRunner.run, a refusal carrying `retry_after` made the API error with Retry-After. */
  readonly run: CommandRunner['run'] = (decider, stream, command, options) =>
    this.runner.run(decider, stream, command, options).catch((error: unknown) => {
      throw withRetryAfter(error);
    });

  /** CommandRunner.state: the stream's state now (none yet: the initial state). */
  state<Command, Event extends DomainEvent, State, Context>(decider: Decider<Command, Event, State, Context>, stream: string): Promise<State> {
    return this.runner.state(decider, stream);
  }
}

/** Account commands whose decision nothing appended to the person's stream later can make wrong (decision 0034): appended at `any` revision, so they never contend. */
const UNCONTENDED: ReadonlySet<AccountCommand['type']> = new Set(['StartSession']);

/**
 * What the account use cases share (decision 0034): deciding on a person's, an address's or a
 * sign-up's stream (AccountStreams: retried on conflicts, read models waited for), with the
 * injected clock as the deciders' `now`; and reading those streams' states. StartSession (every
 * sign-in) appends at `any` revision: its decision depends only on the account being opened,
 * which never reverts, and on a session id it makes new, so one person's concurrent sign-ins
 * do not conflict on the person's stream.
 */
@Injectable()
export class AccountWrites {
  constructor(private readonly streams: AccountStreams) {}

  now(): Date {
    return this.streams.now();
  }

  /**
   * Decides on the person's stream. `occurredAt`: the clock reading the command was made at (the
   * events' `metadata.occurredAt`, which the projections take as their time instead of the
   * append's): a session's start, so its `created_at` is the reading its expiry and first use
   * are counted from, never after its `last_seen_at`.
   */
  async account(accountId: string, command: AccountCommand | ((state: AccountState) => AccountCommand), meta: WriteMeta, newStream = false, occurredAt?: Date): Promise<RunResult<AccountEvent, AccountState>> {
    const appendAtAnyRevision = typeof command !== 'function' && UNCONTENDED.has(command.type);
    const metadata = occurredAt === undefined ? metadataFor(meta) : { ...metadataFor(meta), occurredAt: occurredAt.toISOString() };
    return this.streams.run(accountDecider, ACCOUNT_STREAM.stream(accountId), command, { context: undefined, metadata, newStream, appendAtAnyRevision });
  }

  async email(email: string, command: AccountEmailCommand, meta: WriteMeta): Promise<RunResult<AccountEmailEvent, AccountEmailState>> {
    return this.streams.run(accountEmailDecider, ACCOUNT_EMAIL_STREAM.stream(emailFingerprint(email)), command, { context: undefined, metadata: metadataFor(meta), waitForReadModels: false });
  }

  /** `hooks`: as RunOptions — `afterAppend` runs only once this run's append succeeded (e.g. e-mail the code it recorded). */
  async signup(signupId: string, command: SignupCommand | ((state: SignupState) => SignupCommand), meta: WriteMeta, newStream = false, hooks: AppendHooks<SignupEvent, SignupState> = {}): Promise<RunResult<SignupEvent, SignupState>> {
    return this.streams.run(signupDecider, SIGNUP_STREAM.stream(signupId), command, { context: { now: this.now() }, metadata: metadataFor(meta), newStream, waitForReadModels: false, ...appendHooks(hooks) });
  }

  async signupState(signupId: string): Promise<SignupState> {
    return this.streams.state(signupDecider, SIGNUP_STREAM.stream(signupId));
  }

  async emailState(email: string): Promise<AccountEmailState> {
    return this.streams.state(accountEmailDecider, ACCOUNT_EMAIL_STREAM.stream(emailFingerprint(email)));
  }

  async accountState(accountId: string): Promise<AccountState> {
    return this.streams.state(accountDecider as Decider<AccountCommand, AccountEvent, AccountState>, ACCOUNT_STREAM.stream(accountId));
  }
}
