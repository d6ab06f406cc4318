import { Injectable } from '@nestjs/common';
import { RunResult, WriteMeta, metadataFor } from '@lib/eventstore';
import { readLinkToken } from '@lib/http';
import { AccountStreams, AppendHooks, appendHooks, withRetryAfter } from '../app/account-writes';
import { ACCOUNT_STREAM, isAccountId } from '../stream-categories';
import { RecoveryCommand, RecoveryState, recoveryDecider } from './recovery.decider';
import type { AccountStreamEvent } from './recovery.events';

/** The account and hash a reset or undo link's token names (decision 0038: newLinkToken of the account id), or null for anything malformed. */
export function readRecoveryToken(token: unknown): { accountId: string; hash: string } | null {
  const named = readLinkToken(token, isAccountId);
  return named && { accountId: named.id, hash: named.hash };
}

/** Deciding with recoveryDecider on a person's stream through AccountStreams (retried on conflicts, read models waited for) on the injected clock. */
@Injectable()
export class RecoveryWrites {
  constructor(private readonly streams: AccountStreams) {}

  now(): Date {
    return this.streams.now();
  }

  /** `hooks`: as RunOptions — `afterAppend` runs only once this run's append succeeded (e.g. e-mail the code or link it recorded). */
  async run(accountId: string, command: RecoveryCommand, meta: WriteMeta, now = this.now(), hooks: AppendHooks<AccountStreamEvent, RecoveryState> = {}): Promise<RunResult<AccountStreamEvent, RecoveryState>> {
    return this.streams.run(recoveryDecider, ACCOUNT_STREAM.stream(accountId), command, { context: { now }, metadata: metadataFor(meta), ...appendHooks(hooks) });
  }

  async state(accountId: string): Promise<RecoveryState> {
    return this.streams.state(recoveryDecider, ACCOUNT_STREAM.stream(accountId));
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
