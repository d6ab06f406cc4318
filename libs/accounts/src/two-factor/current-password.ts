import { Inject, Injectable } from '@nestjs/common';
import { DomainRefusal } from '@lib/domain';
import { AccountsReadModel } from '../accounts.read-model';
import { retryLater } from '../app/account-writes';
import { ACCOUNT_PASSWORDS, AccountPasswords, PASSWORD_FAILURES, PasswordFailures, PasswordSubject } from '../ports';

/**
 * The current password of a signed-in person, checked as /me/password checks it (decision 0034):
 * the session's own ladder first (429 too_many_attempts), a wrong one counted and 400
 * invalid_credentials on `current_password`, a right one clears the count.
 */
@Injectable()
export class CurrentPassword {
  constructor(
    private readonly read: AccountsReadModel,
    @Inject(ACCOUNT_PASSWORDS) private readonly passwords: AccountPasswords,
    @Inject(PASSWORD_FAILURES) private readonly failures: PasswordFailures,
  ) {}

  async check(accountId: string, sessionId: string, password: string): Promise<void> {
    const account = await this.read.byId(accountId);
    if (account === null) throw new DomainRefusal('not_found', 'No account with this id.');
    const subject: PasswordSubject = { kind: 'session', sessionId };
    const gate = await this.failures.check(subject);
    if (gate.state === 'locked') throw retryLater('too_many_attempts', 'Too many wrong passwords: wait before trying again.', gate.retryAfterSec);
    if (!(await this.passwords.verify(account.password_hash, password))) {
      await this.failures.fail(subject);
      throw new DomainRefusal('invalid_credentials', 'The current password is wrong.', 'current_password');
    }
    await this.failures.clear(subject);
  }
}
