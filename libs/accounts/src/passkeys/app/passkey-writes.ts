import { Injectable } from '@nestjs/common';
import { CommandRunner, RunResult, WriteMeta, metadataFor } from '@lib/eventstore';
import { ACCOUNT_STREAM } from '../../stream-categories';
import { PasskeyCommand, PasskeyState, passkeyDecider } from '../passkey.decider';
import type { PersonEventForPasskeys } from '../passkey-events';

/** Decides on a person's stream with the passkey decider (retried on conflicts, read models waited for). */
@Injectable()
export class PasskeyWrites {
  constructor(private readonly runner: CommandRunner) {}

  run(accountId: string, command: PasskeyCommand, meta: WriteMeta): Promise<RunResult<PersonEventForPasskeys, PasskeyState>> {
    return this.runner.run(passkeyDecider, ACCOUNT_STREAM.stream(accountId), command, { context: undefined, metadata: metadataFor(meta) });
  }
}
