import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusinessService } from '@lib/businesses';
import { DomainRefusal } from '@lib/domain';
import { newId } from '@lib/http';
import { ServicePauses } from '@lib/operations';
import { AccountWrites } from '../../app/account-writes';
import { CodeMailer } from '../../app/code-mailer';
import { newCode, newToken, tokenHash } from '../../app/secrets';
import { ACCOUNT_PASSWORDS, AccountPasswords } from '../../ports';
import { SIGNUP_LIFETIME_MS } from '../../signup.decider';
import { SignupView, signupView } from '../../views';
import { StartSignupCommand } from './start-signup.command';

/**
 * Starts a sign-up (POST /accounts; decision 0034): while the operator has paused sign-ups, 503
 * temporarily_unavailable (issue 19 B14; a sign-up started before the pause may still be
 * verified); an address an account holds is 409
 * email_taken; the password must pass the policy (400 weak_password); a referral code no business
 * holds is 400 invalid_request (field referral_code) — without a password it is
 * a passkey sign-up (decision 0037): no hash, and the account's id chosen now (its passkey's
 * user handle); then a code is made and
 * e-mailed (past the address's e-mail budget nothing is sent, and the answer is the same), the
 * sign-up recorded on its own stream with the hashes of the password, the code and the browser's
 * sign-up token, and noted on the address's stream (replacing an earlier pending sign-up).
 */
@CommandHandler(StartSignupCommand)
export class StartSignupHandler implements ICommandHandler<StartSignupCommand> {
  constructor(
    private readonly writes: AccountWrites,
    private readonly mailer: CodeMailer,
    @Inject(ACCOUNT_PASSWORDS) private readonly passwords: AccountPasswords,
    private readonly pauses: ServicePauses,
    private readonly businesses: BusinessService,
  ) {}

  async execute({ input, meta }: StartSignupCommand): Promise<{ signup: SignupView; signupToken: string }> {
    await this.pauses.check('signups');
    const email = input.email;
    if ((await this.writes.emailState(email)).holder !== null) throw new DomainRefusal('email_taken', 'Another account uses this e-mail address.', 'email');
    const password = input.password;
    if (password !== undefined) await this.passwords.assertStrong(password, 'password', { email });
    // the referrer (decision 0035): a code no business holds is refused before anything is sent or recorded
    const referralCode = input.referral_code === undefined ? null : await this.businesses.referralCode(input.referral_code);
    if (input.referral_code !== undefined && referralCode === null) throw new DomainRefusal('invalid_request', 'No business has this referral code.', 'referral_code');
    const passwordHash = password === undefined ? null : await this.passwords.hash(password);
    const signupId = newId('sgn');
    const signupToken = newToken();
    const now = this.writes.now();
    const code = newCode();
    const sent = await this.mailer.send(email, code, now, false);
    await this.writes.signup(
      signupId,
      {
        type: 'StartSignup',
        signup: {
          signup_id: signupId,
          email,
          password_hash: passwordHash,
          ...(passwordHash === null ? { account_id: newId('acc') } : {}),
          business_name: input.business_name,
          simulated: input.simulated ?? false,
          ...(referralCode === null ? {} : { referral_code: referralCode }),
          browser_hash: tokenHash(signupToken),
          expires_at: new Date(now.getTime() + SIGNUP_LIFETIME_MS).toISOString(),
        },
        code: sent,
      },
      meta,
      true,
    );
    await this.writes.email(email, { type: 'NoteSignup', email, signupId }, meta);
    return { signup: signupView(await this.writes.signupState(signupId)), signupToken };
  }
}
