import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { SessionStarter } from '../../../app/session-starter';
import { isToken, tokenHash } from '../../../app/secrets';
import type { StartedSession } from '../../../commands/account-input';
import type { SessionView } from '../../../views';
import { AssertionCheck } from '../../app/assertion';
import { passkeyFailed } from '../../webauthn';
import { PasskeySignInCommand } from './passkey-sign-in.command';

/** Signs a person in with a passkey (decision 0037): the assertion checked for this browser's challenge, then a session (method `passkey`). */
@CommandHandler(PasskeySignInCommand)
export class PasskeySignInHandler implements ICommandHandler<PasskeySignInCommand, StartedSession<SessionView>> {
  constructor(
    private readonly assertions: AssertionCheck,
    private readonly sessions: SessionStarter,
  ) {}

  async execute({ input, browserToken, browser, rp, meta }: PasskeySignInCommand): Promise<StartedSession<SessionView>> {
    if (!isToken(browserToken)) throw passkeyFailed('This browser asked for no passkey options: ask for new options first.');
    const passkey = await this.assertions.verify({ purpose: 'sign_in', browserHash: tokenHash(browserToken) }, input.credential, rp, meta, null);
    return this.sessions.start(passkey.accountId, 'passkey', browser, { ...meta, actor: { kind: 'person', id: passkey.accountId, name: null } });
  }
}
