import { createTransport } from 'nodemailer';
import { EmailUnavailable } from '../ports';

/**
 * The e-mails of password resets and e-mail changes (decision 0038), a port of its own beside
 * decision 0034's ACCOUNT_MAIL so either binds without the other. Throws EmailUnavailable when
 * the deployment cannot send. Links carry their token in the fragment (`#token=…`): a browser
 * never sends it to the dashboard's server, so no access log holds it.
 */
export const RECOVERY_MAIL = Symbol('RECOVERY_MAIL');
export interface RecoveryMail {
  sendPasswordReset(to: string, link: string): Promise<void>;
  sendEmailChangeCode(to: string, code: string): Promise<void>;
  /** To the old address once the change is made: what changed, and the link that undoes it. */
  sendEmailChangeUndo(to: string, newEmail: string, link: string): Promise<void>;
}

/** Where the e-mailed links point: the dashboard's pages (`RECOVERY_LINK_BASE`). */
export const RECOVERY_LINK_BASE = Symbol('RECOVERY_LINK_BASE');

export const resetLink = (base: string, token: string): string => `${base.replace(/\/+$/, '')}/password-reset#token=${token}`;
export const undoLink = (base: string, token: string): string => `${base.replace(/\/+$/, '')}/email-change/undo#token=${token}`;

/** One message: plain text and HTML, no tracking. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The messages, over any sender (SMTP here; libs/mail's once bound). */
export class RecoveryMessages implements RecoveryMail {
  constructor(private readonly send: (message: MailMessage) => Promise<void>) {}

  sendPasswordReset(to: string, link: string): Promise<void> {
    return this.send({
      to,
      subject: 'Reset your password',
      text: `Someone asked to reset the password of your account. To choose a new password, open this link within an hour:\n\n${link}\n\nIf it was not you, ignore this e-mail: your password stays as it is.`,
      html: `<p>Someone asked to reset the password of your account. To choose a new password, open this link within an hour:</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>If it was not you, ignore this e-mail: your password stays as it is.</p>`,
    });
  }

  sendEmailChangeCode(to: string, code: string): Promise<void> {
    return this.send({
      to,
      subject: 'Confirm your new e-mail address',
      text: `Your confirmation code is ${code}. It is valid for 15 minutes.\n\nIf you did not ask to use this address, ignore this e-mail.`,
      html: `<p>Your confirmation code is <strong>${code}</strong>. It is valid for 15 minutes.</p><p>If you did not ask to use this address, ignore this e-mail.</p>`,
    });
  }

  sendEmailChangeUndo(to: string, newEmail: string, link: string): Promise<void> {
    return this.send({
      to,
      subject: 'Your e-mail address was changed',
      text: `The e-mail address of your account is now ${newEmail}. If you did not make this change, open this link within 7 days to put your address back and sign everyone out:\n\n${link}\n\nYou will then choose a new password (after a day).`,
      html: `<p>The e-mail address of your account is now ${escapeHtml(newEmail)}. If you did not make this change, open this link within 7 days to put your address back and sign everyone out:</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>You will then choose a new password (after a day).</p>`,
    });
  }
}

/** SMTP through nodemailer at `url` (SMTP_URL); without one, e-mail is unavailable. */
export function smtpRecoveryMail(url: string | null, from = 'no-reply@payments.invalid'): RecoveryMail {
  return new RecoveryMessages(async (message) => {
    if (!url) throw new EmailUnavailable('SMTP_URL is not set');
    const transport = createTransport(url);
    try {
      await transport.sendMail({ from, ...message });
    } catch {
      throw new EmailUnavailable('the SMTP server did not take the message');
    } finally {
      transport.close();
    }
  });
}
