import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainRefusal } from '@lib/domain';
import { AccountWrites, withRetryAfter } from '../../app/account-writes';
import { CodeMailer } from '../../app/code-mailer';
import { newCode } from '../../app/secrets';
import { ACCOUNT_MAIL, AccountMail } from '../../ports';
import { CODE_LIFETIME_MS, SignupState, signupDecider } from '../../signup.decider';
import { isSignupId } from '../../stream-categories';
import { SignupView, signupView } from '../../views';
import { ResendSignupCodeCommand } from './resend-signup-code.command';

const expired = () => new DomainRefusal('verification_expired', 'This sign-up is finished, replaced by a newer one, or older than a day: sign up again.');

/**
 * Sends a new sign-up code (POST /accounts/verify/resend; decision 0034): the decider's rules
 * first (open sign-up, a minute after the last code, at most 5 codes: 429 too_many_emails with
 * Retry-After — the longer of the minute and the address's e-mail budget when both hold, addendum
 * of 2026-11-30), so a refused resend spends nothing; then the address's e-mail budget (429
 * too_many_emails past it), SignupCodeSent (the earlier code stops working, and its wrong tries
 * with it), and once that append succeeded the e-mail (the CommandRunner's afterAppend): of
 * concurrent resends only the one whose append won sends a code; the others are refused 429
 * too_many_emails (a minute after the last) and give the budget back. SMTP down: the new code
 * withdrawn (SignupCodeWithdrawn: the one before it works again), the budget given back, 503
 * email_unavailable — nothing stays recorded (addendum of 2026-11-29, decision 0034).
 */
@CommandHandler(ResendSignupCodeCommand)
export class ResendSignupCodeHandler implements ICommandHandler<ResendSignupCodeCommand, SignupView> {
  constructor(
    private readonly writes: AccountWrites,
    private readonly mailer: CodeMailer,
    @Inject(ACCOUNT_MAIL) private readonly mail: AccountMail,
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
      // "a minute after the last" with the address's budget spent too: Retry-After is the longer wait (audit lim F2)
      throw await this.mailer.withBudgetWait(email, withRetryAfter(error));
    }
    const code = newCode();
    const codeHash = await this.mailer.hash(code);
    const sent = { code_hash: codeHash, sent_at: now.toISOString(), expires_at: new Date(now.getTime() + CODE_LIFETIME_MS).toISOString(), delivered: true };
    // the budget (429 past it) now; the e-mail only once SignupCodeSent is appended: a resend refused after losing the
    // race (429 too_many_emails, a code was just sent) sends nothing and gives the budget back (addendum of 2026-11-29)
    const signupId = state.signup.id;
    let before: SignupState = state;
    const run = await this.mailer.afterAppend(email, true, () => this.send(signupId, email, code, codeHash, before, meta), (_withinBudget, afterAppend) =>
      this.writes.signup(signupId, { type: 'ResendSignupCode', code: sent, replaced }, meta, false, { beforeAppend: async (_events, decidedOn) => void (before = decidedOn), afterAppend }),
    );
    return signupView(run.state);
  }

  /** The resent code, once recorded; SMTP refusing (503 email_unavailable): the code withdrawn, the one before it back. */
  private async send(signupId: string, email: string, code: string, codeHash: string, before: SignupState, meta: ResendSignupCodeCommand['meta']): Promise<void> {
    try {
      await this.mail.sendSignupCode(email, code);
    } catch (error) {
      await this.writes.signup(signupId, { type: 'WithdrawSignupCode', codeHash, restored: before.code }, meta);
      throw error;
    }
  }
}
