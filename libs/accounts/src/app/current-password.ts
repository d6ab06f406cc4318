import { Inject, Injectable } from '@nestjs/common';
import { DomainRefusal, STEP_UP_HOW } from '@lib/domain';
import { AccountRow, AccountsReadModel } from '../accounts.read-model';
import { ACCOUNT_PASSWORDS, AccountPasswords, PASSWORD_FAILURES, PasswordFailures, PasswordSubject } from '../ports';
import { retryLater } from './account-writes';

/** What a change proven by the current password or, without one, a step-up carries (`PasswordOrStepUpCommand`). */
export interface PasswordOrStepUp {
  accountId: string;
  sessionId: string;
  input: { current_password?: string };
  /** The session stepped up within 15 minutes (@SteppedUp). */
  steppedUp: boolean;
}

/**
 * The current password of a signed-in person, checked the one way spec §8 asks of
 * `current_password` on /me/password, /me/email, /me/two-factor and /sessions/current/step-up
 * (decisions 0034, 0036-0038): the session's own wrong-password ladder first (429
 * too_many_attempts; a slot of it held while verifying, so concurrent wrong passwords never
 * outrun it: decision 0033), a wrong one counted and 400 invalid_credentials on
 * `current_password` (a person without a password answers the same), a right one clears the
 * count. Answers the person's account row.
 */
@Injectable()
export class CurrentPassword {
  constructor(
    private readonly read: AccountsReadModel,
    @Inject(ACCOUNT_PASSWORDS) private readonly passwords: AccountPasswords,
    @Inject(PASSWORD_FAILURES) private readonly failures: PasswordFailures,
  ) {}

  async check(accountId: string, sessionId: string, password: string): Promise<AccountRow> {
    const account = await this.read.byId(accountId);
    if (account === null) throw new DomainRefusal('not_found', 'No account with this id.');
    const subject: PasswordSubject = { kind: 'session', sessionId };
    const gate = await this.failures.reserve(subject); // a slot while verifying: concurrent guesses never outrun the ladder
    // (a session's count locks but never disables the password)
    if (gate.state !== 'open') throw retryLater('too_many_attempts', 'Too many wrong passwords: wait before trying again.', gate.state === 'locked' ? gate.retryAfterSec : 1);
    try {
      if (!(Boolean(account.password_hash) && (await this.passwords.verify(account.password_hash, password)))) {
        await gate.attempt.failed();
        throw new DomainRefusal('invalid_credentials', 'The current password is wrong.', 'current_password');
      }
      await gate.attempt.succeeded();
    } finally {
      await gate.attempt.release();
    }
    return account;
  }

  /**
   * `check` when the password is given; left out, the person must have none (a passkey sign-up:
   * '' in the projection; else 400 invalid_request "current_password is required.", as before)
   * and the session must have stepped up within 15 minutes (else 403 step_up_required) — a
   * passkey step-up, or the passkey sign-in itself (decision 0037, addendum of 2026-11-29).
   */
  async checkOrStepUp({ accountId, sessionId, input, steppedUp }: PasswordOrStepUp): Promise<AccountRow> {
    if (input.current_password !== undefined) return this.check(accountId, sessionId, input.current_password);
    const account = await this.read.byId(accountId);
    if (account === null) throw new DomainRefusal('not_found', 'No account with this id.');
    if (account.password_hash !== '') throw new DomainRefusal('invalid_request', 'current_password is required.', 'current_password');
    if (!steppedUp) throw new DomainRefusal('step_up_required', `This account has no password: confirm it is you first — ${STEP_UP_HOW}.`);
    return account;
  }
}
