import { MailMessage, MailUnavailableError, Mailer, renderMail } from '@lib/mail';
import type { AccountMail } from '../ports';

/**
 * ACCOUNT_MAIL over libs/mail's MAILER (SMTP through nodemailer, the dev mailbox, or none;
 * decision 0032): the account e-mails written once with renderMail (plain text and HTML, no
 * tracking). A mailer that cannot send throws MailUnavailableError: 503 email_unavailable.
 */
export class MailerAccountMail implements AccountMail {
  constructor(private readonly mailer: Mailer) {}

  async sendSignupCode(to: string, code: string): Promise<void> {
    const footer = 'You get this e-mail because someone signed up with this address. If it was not you, ignore it: nothing happens without the code.';
    await this.mailer.send(accountCodeMail(to, code, { title: 'Your sign-up code', purpose: 'to finish signing up', footer }));
  }
}

/** An account e-mail that carries a code valid 15 minutes: "Type this code `purpose`." */
export function accountCodeMail(to: string, code: string, mail: { title: string; purpose: string; footer: string }): MailMessage {
  return { to, ...renderMail({ title: mail.title, paragraphs: [`Type this code ${mail.purpose}. It is valid for 15 minutes.`], code, footer: mail.footer }) };
}

export { MailUnavailableError };
