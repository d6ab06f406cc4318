import { createTransport } from 'nodemailer';
import { AccountMail, ChallengeCheck, ChallengeForm, EmailUnavailable } from '../ports';

/**
 * Stand-in implementations of the mail and challenge ports, used until libs/mail and
 * libs/challenge bind them (decision 0034): SMTP through nodemailer at SMTP_URL, and a challenge
 * that accepts any token but "fail". AccountsModule uses them only where no other binding is given.
 */

/** SMTP through nodemailer (SMTP_URL, e.g. smtp://127.0.0.1:2525); without one, e-mail is unavailable. */
export class SmtpAccountMail implements AccountMail {
  constructor(
    private readonly url: string | null,
    private readonly from = 'no-reply@payments.invalid',
  ) {}

  async sendSignupCode(to: string, code: string): Promise<void> {
    if (!this.url) throw new EmailUnavailable('SMTP_URL is not set');
    const transport = createTransport(this.url);
    try {
      await transport.sendMail({
        from: this.from,
        to,
        subject: 'Your sign-up code',
        text: `Your sign-up code is ${code}. It is valid for 15 minutes.\n\nIf you did not sign up, ignore this e-mail.`,
        html: `<p>Your sign-up code is <strong>${code}</strong>. It is valid for 15 minutes.</p><p>If you did not sign up, ignore this e-mail.</p>`,
      });
    } catch {
      throw new EmailUnavailable('the SMTP server did not take the message');
    } finally {
      transport.close();
    }
  }
}

/** Accepts any non-empty token but "fail" (local and simulated use only). */
export class PermissiveChallenge implements ChallengeCheck {
  async verify(token: string | undefined, _form: ChallengeForm): Promise<boolean> {
    return typeof token === 'string' && token !== '' && token !== 'fail';
  }
}
