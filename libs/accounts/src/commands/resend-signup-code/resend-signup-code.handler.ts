import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { AccountWrites, withRetryAfter } from '../../app/account-writes';
import { CodeMailer } from '../../app/code-mailer';
import { newCode } from '../../app/secrets';
import { signupDecider } from '../../signup.decider';
import { isSignupId } from '../../stream-categories';
import { SignupView, signupView } from '../../views';
import { ResendSignupCodeCommand } from './resend-signup-code.command';

const expired = () => new DomainRefusal('verification_expired', 'This sign-up is finished, replaced by a newer one, or older than a day: sign up again.');

/**
 * Sends a new sign-up code (POST /accounts/verify/resend; decision 0034): the decider's rules
 * first (open sign-up, a minute after the last code, at most 5 codes: 429 too_many_emails with
 * Retry-After), so a refused resend spends nothing; then the address's e-mail budget (429
 * too_many_emails past it), the e-mail, and SignupCodeSent (the earlier code stops working, and
 * its wrong tries with it).
 */
@CommandHandler(ResendSignupCodeCommand)
export class ResendSignupCodeHandler implements ICommandHandler<ResendSignupCodeCommand, SignupView> {
  constructor(
    private readonly writes: AccountWrites,
    private readonly mailer: CodeMailer,
  ) {}

  async execute({ input, meta }: ResendSignupCodeCommand): Promise<SignupView> {
    if (!isSignupId(input.signup_id)) throw expired();
    const state = await this.writes.signupState(input.signup_id);
    if (state.signup === null) throw expired();
    const email = state.signup.email;
    const replaced = (await this.writes.emailState(email)).pendingSignup !== state.signup.id;
    const now = this.writes.now();
    const probe = { code_hash: '', sent_at: now.toISOString(), expires_at: now.toISOString(), delivered: false };
    try {
      signupDecider.decide({ type: 'ResendSignupCode', code: probe, replaced }, state, { now }); // the rules before anything is spent
    } catch (error) {
      throw withRetryAfter(error);
    }
    const sent = await this.mailer.send(email, newCode(), now, true);
    const run = await this.writes.signup(state.signup.id, { type: 'ResendSignupCode', code: sent, replaced }, meta);
    return signupView(run.state);
  }
}
