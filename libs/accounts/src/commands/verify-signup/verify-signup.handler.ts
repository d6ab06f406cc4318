import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusinessService } from '@lib/businesses';
import { DomainRefusal } from '@lib/domain';
import { newId } from '@lib/http';
import { AccountsReadModel } from '../../accounts.read-model';
import { AccountWrites, retryLater } from '../../app/account-writes';
import { SessionStarter } from '../../app/session-starter';
import { tokenHash } from '../../app/secrets';
import { ACCOUNT_PASSWORDS, AccountPasswords, PASSWORD_FAILURES, PasswordFailures, SIGNUP_CODE_LIMIT, SignupCodeLimit } from '../../ports';
import { isSignupId } from '../../stream-categories';
import { VerifiedSignup, VerifySignupCommand } from './verify-signup.command';

const expired = () => new DomainRefusal('verification_expired', 'This sign-up is finished, replaced by a newer one, or older than a day: sign up again.');

/**
 * Verifies a sign-up (POST /accounts/verify; decision 0034). The impure facts — the typed code
 * against the code's argon2id hash, the sign-up cookie against the browser's hash, the password
 * given again against the chosen one, whether a newer sign-up replaced this one — are
 * established here; the sign-up decider rules on them. A wrong code is recorded (then 400
 * invalid_code) and counts against the address's 10 wrong sign-up codes a day. Once completed:
 * the address is claimed, the account opened, its first business created through the
 * businesses capability (BusinessService.createBusiness: the operator's path too, with a
 * simulated business's wallet), the person made its owner, and a session started.
 */
@CommandHandler(VerifySignupCommand)
export class VerifySignupHandler implements ICommandHandler<VerifySignupCommand, VerifiedSignup> {
  constructor(
    private readonly writes: AccountWrites,
    private readonly read: AccountsReadModel,
    private readonly sessions: SessionStarter,
    private readonly businesses: BusinessService,
    @Inject(ACCOUNT_PASSWORDS) private readonly passwords: AccountPasswords,
    @Inject(SIGNUP_CODE_LIMIT) private readonly codeLimit: SignupCodeLimit,
    @Inject(PASSWORD_FAILURES) private readonly failures: PasswordFailures,
  ) {}

  async execute({ input, browser, meta }: VerifySignupCommand): Promise<VerifiedSignup> {
    if (!isSignupId(input.signup_id)) throw expired();
    const state = await this.writes.signupState(input.signup_id);
    const signup = state.signup;
    if (signup === null) throw expired();
    const code = input.code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(code)) throw new DomainRefusal('invalid_code', 'The code is 6 digits.', 'code');
    const limit = await this.codeLimit.check(signup.email);
    if (!limit.allowed) throw retryLater('too_many_attempts', 'Too many wrong sign-up codes for this address today.', limit.retryAfterSec);
    const email = await this.writes.emailState(signup.email);
    const sameBrowser = browser.signupToken !== null && tokenHash(browser.signupToken) === signup.browserHash;
    const checkedHash = state.code?.hash ?? null;
    const codeMatches = checkedHash !== null && (await this.passwords.verify(checkedHash, code));
    const passwordMatches = input.password !== undefined && !sameBrowser && (await this.passwords.verify(signup.passwordHash, input.password));
    const accountId = newId('acc');
    const run = await this.writes.signup(
      signup.id,
      { type: 'TrySignupCode', checkedHash, codeMatches, sameBrowser, passwordGiven: input.password !== undefined, passwordMatches, replaced: email.pendingSignup !== signup.id, accountId },
      meta,
    );
    const last = run.appended[run.appended.length - 1]?.event;
    if (last?.type !== 'SignupCompleted') {
      await this.codeLimit.fail(signup.email);
      throw new DomainRefusal('invalid_code', 'The code is wrong.', 'code');
    }
    const personMeta = { ...meta, actor: { kind: 'person', id: accountId, name: null } };
    await this.writes.email(signup.email, { type: 'ClaimAccountEmail', email: signup.email, accountId, signupId: signup.id }, personMeta);
    await this.writes.account(accountId, { type: 'OpenAccount', accountId, email: signup.email, passwordHash: signup.passwordHash, signupId: signup.id }, personMeta, true);
    const created = await this.businesses.createBusiness({ name: signup.businessName, simulated: signup.simulated, ...personMeta });
    await this.writes.account(accountId, { type: 'JoinBusiness', businessId: created.business.id, role: 'owner' }, personMeta);
    const started = await this.sessions.start(accountId, 'sign_up', browser, personMeta);
    await this.failures.signedIn(signup.email, tokenHash(started.deviceToken)); // a browser that signed in: its own failed-password count
    const account = await this.read.view(accountId);
    if (account === null) throw new Error(`account ${accountId}: not in the read model after its write`);
    return { answer: { account, session: started.answer }, sessionToken: started.sessionToken, deviceToken: started.deviceToken };
  }
}
