import { Inject, Injectable } from '@nestjs/common';
import { foldWith } from '@lib/domain';
import { CommandRunner, EVENT_STORE, EventStore, RunResult, StreamNotFoundError, WriteMeta, metadataFor } from '@lib/eventstore';
import { withRetryAfter } from '../app/account-writes';
import { isToken, newToken, tokenHash } from '../app/secrets';
import { ACCOUNTS_CLOCK, AccountsClock } from '../ports';
import { ACCOUNT_STREAM, isAccountId } from '../stream-categories';
import { RecoveryCommand, RecoveryState, recoveryDecider } from './recovery.decider';
import type { AccountStreamEvent } from './recovery.events';

/**
 * A reset or undo link's token (decision 0038): `<acc_id>.<256 random bits, base64url>`. The
 * account id finds the stream without a lookup table; what is stored is the SHA-256 of the whole
 * token, which only the e-mail holds.
 */
export function newRecoveryToken(accountId: string): { token: string; hash: string } {
  const token = `${accountId}.${newToken()}`;
  return { token, hash: tokenHash(token) };
}

/** The account and hash a token names, or null for anything malformed. */
export function readRecoveryToken(token: unknown): { accountId: string; hash: string } | null {
  if (typeof token !== 'string') return null;
  const dot = token.indexOf('.');
  if (dot < 0) return null;
  const accountId = token.slice(0, dot);
  if (!isAccountId(accountId) || !isToken(token.slice(dot + 1))) return null;
  return { accountId, hash: tokenHash(token) };
}

/** Deciding with recoveryDecider on a person's stream (retried on conflicts, read models waited for) on the injected clock. */
@Injectable()
export class RecoveryWrites {
  constructor(
    private readonly runner: CommandRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCOUNTS_CLOCK) private readonly clock: AccountsClock,
  ) {}

  now(): Date {
    return this.clock();
  }

  async run(accountId: string, command: RecoveryCommand, meta: WriteMeta, now = this.now()): Promise<RunResult<AccountStreamEvent, RecoveryState>> {
    try {
      return await this.runner.run(recoveryDecider, ACCOUNT_STREAM.stream(accountId), command, { context: { now }, metadata: metadataFor(meta) });
    } catch (error) {
      throw withRetryAfter(error);
    }
  }

  async state(accountId: string): Promise<RecoveryState> {
    try {
      return foldWith(recoveryDecider, await this.store.readStream(ACCOUNT_STREAM.stream(accountId)));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return recoveryDecider.initialState;
      throw error;
    }
  }

  /** The decider's answer without appending (rules checked before anything is spent, as resends do). */
  probe(state: RecoveryState, command: RecoveryCommand, now = this.now()): AccountStreamEvent[] {
    try {
      return recoveryDecider.decide(command, state, { now });
    } catch (error) {
      throw withRetryAfter(error);
    }
  }
}
