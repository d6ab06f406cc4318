import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusinessService } from '@lib/businesses';
import { DomainRefusal } from '@lib/domain';
import type { WriteMeta } from '@lib/eventstore';
import { newId } from '@lib/http';
import { AccountsReadModel } from '../../accounts.read-model';
import { AccountWrites, retryLater } from '../../app/account-writes';
import { SessionStarter } from '../../app/session-starter';
import { tokenHash } from '../../app/secrets';
import { PasskeyWrites } from '../../passkeys/app/passkey-writes';
import { WebauthnChallenges } from '../../passkeys/challenges';
import { PasskeysReadModel } from '../../passkeys/passkeys.read-model';
import { verifyRegistration } from '../../passkeys/webauthn';
import { ACCOUNT_PASSWORDS, AccountPasswords, PASSWORD_FAILURES, PasswordFailures, SIGNUP_CODE_LIMIT, SignupCodeLimit } from '../../ports';
import type { SignupRecord } from '../../signup.decider';
import { isSignupId } from '../../stream-categories';
import { VerifiedSignup, VerifySignupCommand } from './verify-signup.command';

type Registration = Awaited<ReturnType<typeof verifyRegistration>>;

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
 *
 * A passkey sign-up (decision 0037): its registration response is checked first against the
 * sign-up's challenge (left in place), and the decider is told how that went — it answers a
 * failure only once the code proved right, so a bad passkey spends no try and opens nothing,
 * and a wrong code does not spend the passkey. Once completed the challenge is taken (single
 * use), the account opens without a password, the passkey is added (PasskeyAdded) before the
 * business, and the session's method is `passkey`.
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
    private readonly challenges: WebauthnChallenges,
    private readonly passkeys: PasskeysReadModel,
    private readonly passkeyWrites: PasskeyWrites,
  ) {}

  async execute({ input, browser, meta, rp }: VerifySignupCommand): Promise<VerifiedSignup> {
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
    const passwordMatches = input.password !== undefined && !sameBrowser && signup.passwordHash !== null && (await this.passwords.verify(signup.passwordHash, input.password));
    const passwordless = signup.passwordHash === null;
    const accountId = signup.accountId ?? newId('acc');
    const registration = passwordless && sameBrowser && input.password === undefined && codeMatches ? await this.registration(signup, input.credential, rp) : null;
    const passkey = input.credential === undefined ? 'none' : registration === null ? 'failed' : (await this.passkeys.byCredential(registration.credential.id)) !== null ? 'exists' : 'verified';
    const run = await this.writes.signup(
      signup.id,
      { type: 'TrySignupCode', checkedHash, codeMatches, sameBrowser, passwordGiven: input.password !== undefined, passwordMatches, replaced: email.pendingSignup !== signup.id, accountId, passkey },
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
    if (registration !== null) {
      await this.challenges.take({ purpose: 'sign_up', signupId: signup.id }); // spent: the sign-up is completed, so it could not be answered again anyway
      await this.passkeyWrites.run(accountId, { type: 'AddPasskey', passkey: addedPasskey(registration, input.credential!.response.transports) }, personMeta);
    }
    const created = await this.firstBusiness(signup, personMeta);
    await this.writes.account(accountId, { type: 'JoinBusiness', businessId: created.business.id, role: 'owner' }, personMeta);
    const started = await this.sessions.start(accountId, passwordless ? 'passkey' : 'sign_up', browser, personMeta);
    await this.failures.signedIn(signup.email, tokenHash(started.deviceToken)); // a browser that signed in: its own failed-password count
    const account = await this.read.view(accountId);
    if (account === null) throw new Error(`account ${accountId}: not in the read model after its write`);
    return { answer: { account, session: started.answer }, sessionToken: started.sessionToken, deviceToken: started.deviceToken };
  }

  /**
   * The person's first business, referred by the business whose code the sign-up gave (decision
   * 0035). A code released since the sign-up started (its holder changed it) no longer names a
   * referrer: the business is created without one rather than the verified sign-up refused.
   */
  private async firstBusiness(signup: SignupRecord, meta: WriteMeta) {
    const input = { name: signup.businessName, simulated: signup.simulated, ...meta };
    if (signup.referralCode === null) return this.businesses.createBusiness(input);
    try {
      return await this.businesses.createBusiness({ ...input, referral_code: signup.referralCode });
    } catch (error) {
      if (!(error instanceof DomainRefusal && error.code === 'invalid_request' && error.field === 'referral_code')) throw error;
      return this.businesses.createBusiness(input);
    }
  }

  /** A passkey sign-up's registration verified against the sign-up's waiting challenge (not taken), or null when it does not verify. */
  private async registration(signup: SignupRecord, credential: VerifySignupCommand['input']['credential'], rp: VerifySignupCommand['rp']): Promise<Registration | null> {
    if (credential === undefined || rp === null) return null;
    const waiting = await this.challenges.peek({ purpose: 'sign_up', signupId: signup.id });
    if (waiting === null || waiting.accountId !== signup.accountId) return null;
    try {
      return await verifyRegistration(rp, credential, waiting.challenge);
    } catch {
      return null; // 400 passkey_failed, said by the decider once the code is right
    }
  }
}

/** The PasskeyAdded of a sign-up's verified registration (decision 0037: the fields POST /me/passkeys records). */
function addedPasskey(info: Registration, sentTransports: string[] | undefined) {
  return {
    passkey_id: newId('pky'),
    credential_id: info.credential.id,
    public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
    counter: info.credential.counter,
    transports: [...(info.credential.transports ?? sentTransports ?? [])].map(String).slice(0, 10),
    name: 'Passkey',
    device_type: info.credentialDeviceType,
    backed_up: info.credentialBackedUp,
  };
}
