import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { AccountsReadModel } from '../../accounts.read-model';
import { emailKey } from '../../accounts.projector';
import { retryLater } from '../../app/account-writes';
import { SessionStarter } from '../../app/session-starter';
import { isToken, tokenHash } from '../../app/secrets';
import { ACCOUNT_PASSWORDS, AccountPasswords, PASSWORD_FAILURES, PasswordFailures, PasswordSubject } from '../../ports';
import { TwoFactorSignIn } from '../../two-factor/two-factor-sign-in';
import { TwoFactorChallengeView } from '../../two-factor/views';
import { SessionView } from '../../views';
import type { StartedSession } from '../account-input';
import { SignInCommand } from './sign-in.command';
import { RESET_REQUIRED_HASH } from '../../recovery/recovery.projection';

/** Verified against when the address names no account, so an unknown address takes as long as a wrong password. */
let decoy: Promise<string> | null = null;

/**
 * Signs a person in with a password (POST /sessions; decision 0034). The address's failed-password
 * ladder first (429 too_many_attempts with Retry-After; past 100 failures 403
 * password_reset_required) — a browser that signed in to this account before counts on its own
 * and is never disabled — which gives the attempt a slot only while the failures plus the
 * attempts in flight stay below the next lock (decision 0033); then the password against the
 * argon2id hash (an unknown address is checked against a decoy hash: the same 400
 * invalid_credentials, the same time); a failure counts, a success clears the count and starts a
 * session.
 */
@CommandHandler(SignInCommand)
export class SignInHandler implements ICommandHandler<SignInCommand, StartedSession<SessionView> | TwoFactorChallengeView> {
  constructor(
    private readonly read: AccountsReadModel,
    private readonly sessions: SessionStarter,
    @Inject(ACCOUNT_PASSWORDS) private readonly passwords: AccountPasswords,
    @Inject(PASSWORD_FAILURES) private readonly failures: PasswordFailures,
    private readonly twoFactor: TwoFactorSignIn,
  ) {}

  async execute({ input, browser, meta }: SignInCommand): Promise<StartedSession<SessionView> | TwoFactorChallengeView> {
    const account = await this.read.byEmail(input.email);
    const device = isToken(browser.deviceToken) ? tokenHash(browser.deviceToken) : null;
    const subject: PasswordSubject = { kind: 'email', email: emailKey(input.email), browser: device };
    // a slot of the ladder while the password is verified: concurrent guesses never outnumber the failures left before the next lock
    const gate = await this.failures.reserve(subject);
    let credentialsVersion = 0;
    if (gate.state === 'locked') throw retryLater('too_many_attempts', 'Too many wrong passwords: wait before trying again.', gate.retryAfterSec);
    if (gate.state === 'disabled') throw new DomainRefusal('password_reset_required', 'This password stopped working after too many failures: reset it.');
    try {
      if (account?.password_hash === RESET_REQUIRED_HASH) throw new DomainRefusal('password_reset_required', 'This password stopped working when an e-mail change was undone: reset it.');
      // a person without a password (a passkey sign-up, decision 0037: '' in the projection) answers as an unknown address, in the same time;
      // the person's credentials version read while the hash is checked (hidden in its time): a challenge records it (decision 0036, addendum of 2026-11-29)
      const [matches, version] =
        account !== null && account.password_hash !== ''
          ? await Promise.all([this.passwords.verify(account.password_hash, input.password), this.twoFactor.credentialsVersion(account.id)])
          : [(await this.passwords.verify(await this.decoyHash(), input.password), false), 0];
      credentialsVersion = version;
      if (!matches) {
        await gate.attempt.failed();
        throw new DomainRefusal('invalid_credentials', 'The e-mail address and password do not match.');
      }
      await gate.attempt.succeeded();
    } finally {
      await gate.attempt.release(); // ended otherwise (an exception): the slot is freed, nothing counted
    }
    const personMeta = { ...meta, actor: { kind: 'person', id: account!.id, name: null } };
    // two-step sign-in on: a challenge instead of a session; the browser counts as signed in once the second step is done (decision 0036)
    const challenge = await this.twoFactor.challengeIfEnabled(account!.id, credentialsVersion, personMeta);
    if (challenge !== null) return challenge;
    const started = await this.sessions.start(account!.id, 'password', browser, personMeta);
    await this.failures.signedIn(subject.email, tokenHash(started.deviceToken)); // this browser keeps its own count from now on
    return started;
  }

  private decoyHash(): Promise<string> {
    decoy ??= this.passwords.hash('decoy password that no account has');
    return decoy;
  }
}
