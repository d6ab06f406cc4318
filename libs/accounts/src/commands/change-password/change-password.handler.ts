import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { AccountsReadModel } from '../../accounts.read-model';
import { AccountWrites, retryLater } from '../../app/account-writes';
import { ACCOUNT_PASSWORDS, AccountPasswords, PASSWORD_FAILURES, PasswordFailures, PasswordSubject } from '../../ports';
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
    @Inject(ACCOUNT_PASSWORDS) private readonly passwords: AccountPasswords,
    @Inject(PASSWORD_FAILURES) private readonly failures: PasswordFailures,
  ) {}

  async execute({ accountId, sessionId, input, meta }: ChangePasswordCommand): Promise<AccountView> {
    const account = await this.read.byId(accountId);
    if (account === null) throw new DomainRefusal('not_found', 'No account with this id.');
    const subject: PasswordSubject = { kind: 'session', sessionId };
    const gate = await this.failures.check(subject);
    if (gate.state === 'locked') throw retryLater('too_many_attempts', 'Too many wrong passwords: wait before trying again.', gate.retryAfterSec);
    if (!(await this.passwords.verify(account.password_hash, input.current_password))) {
      await this.failures.fail(subject);
      throw new DomainRefusal('invalid_credentials', 'The current password is wrong.', 'current_password');
    }
    await this.failures.clear(subject);
    await this.passwords.assertStrong(input.new_password, 'new_password', { email: account.email });
    const passwordHash = await this.passwords.hash(input.new_password);
    await this.writes.account(accountId, { type: 'ChangePassword', passwordHash, keepSessionId: sessionId }, meta);
    return (await this.read.view(accountId))!;
  }
}
