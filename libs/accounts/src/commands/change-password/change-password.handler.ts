import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AccountsReadModel } from '../../accounts.read-model';
import { AccountWrites } from '../../app/account-writes';
import { CurrentPassword } from '../../app/current-password';
import { ACCOUNT_PASSWORDS, AccountPasswords } from '../../ports';
import { AccountView } from '../../views';
import { ChangePasswordCommand } from './change-password.command';

/**
 * Changes a person's password (POST /me/password; decision 0034): wrong current passwords climb
 * the session's own ladder (spec §8: the same locks as sign-in; 429 too_many_attempts); a wrong
 * one is 400 invalid_credentials on `current_password`; the new one must pass the policy (400
 * weak_password); then AccountPasswordChanged, and every other session of the person ends.
 */
@CommandHandler(ChangePasswordCommand)
export class ChangePasswordHandler implements ICommandHandler<ChangePasswordCommand, AccountView> {
  constructor(
    private readonly writes: AccountWrites,
    private readonly read: AccountsReadModel,
    private readonly currentPassword: CurrentPassword,
    @Inject(ACCOUNT_PASSWORDS) private readonly passwords: AccountPasswords,
  ) {}

  async execute(command: ChangePasswordCommand): Promise<AccountView> {
    const account = await this.currentPassword.checkOrStepUp(command);
    const { accountId, sessionId, input, meta } = command;
    await this.passwords.assertStrong(input.new_password, 'new_password', { email: account.email });
    const passwordHash = await this.passwords.hash(input.new_password);
    // a first password (no current one given): only while the person still has none — two at once, the second asks for the first's
    await this.writes.account(accountId, { type: 'ChangePassword', passwordHash, keepSessionId: sessionId, first: input.current_password === undefined }, meta);
    return (await this.read.view(accountId))!;
  }
}
