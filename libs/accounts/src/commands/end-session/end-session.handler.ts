import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { AccountsReadModel } from '../../accounts.read-model';
import { AccountWrites } from '../../app/account-writes';
import { SessionView } from '../../views';
import { EndSessionCommand } from './end-session.command';

/** Ends one of the person's live sessions (another person's, an ended or an expired one: 404 not_found). */
@CommandHandler(EndSessionCommand)
export class EndSessionHandler implements ICommandHandler<EndSessionCommand, SessionView> {
  constructor(
    private readonly writes: AccountWrites,
    private readonly read: AccountsReadModel,
  ) {}

  async execute({ accountId, sessionId, currentSessionId, reason, meta }: EndSessionCommand): Promise<SessionView> {
    const session = await this.read.session(accountId, sessionId, currentSessionId, this.writes.now());
    if (session === null) throw new DomainRefusal('not_found', 'No session with this id.');
    await this.writes.account(accountId, { type: 'EndSession', sessionId, currentSessionId: reason === 'signed_out' ? null : currentSessionId, reason }, meta);
    return session;
  }
}
