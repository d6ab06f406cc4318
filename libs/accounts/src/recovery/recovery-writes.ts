import { Injectable } from '@nestjs/common';
import { RunResult, WriteMeta, metadataFor } from '@lib/eventstore';
import { AccountStreams, withRetryAfter } from '../app/account-writes';
import { isToken, newToken, tokenHash } from '../app/secrets';
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

/** Deciding with recoveryDecider on a person's stream through AccountStreams (retried on conflicts, read models waited for) on the injected clock. */
@Injectable()
export class RecoveryWrites {
  constructor(private readonly streams: AccountStreams) {}

  now(): Date {
    return this.streams.now();
  }

  async run(accountId: string, command: RecoveryCommand, meta: WriteMeta, now = this.now()): Promise<RunResult<AccountStreamEvent, RecoveryState>> {
    return this.streams.run(recoveryDecider, ACCOUNT_STREAM.stream(accountId), command, { context: { now }, metadata: metadataFor(meta) });
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
