import { Mailer, renderMail } from '@lib/mail';
import { accountCodeMail } from '../adapters/mail';
import type { UndoRemovals } from './recovery.decider';

/**
 * The e-mails of password resets and e-mail changes (decision 0038), a port of its own beside
 * decision 0034's ACCOUNT_MAIL so either binds without the other; by default over libs/mail's
 * MAILER (MailerRecoveryMail). A mailer that cannot send throws MailUnavailableError (503
 * email_unavailable). Links carry their token in the fragment (`#token=…`): a browser never
 * sends it to the dashboard's server, so no access log holds it.
 */
export const RECOVERY_MAIL = Symbol('RECOVERY_MAIL');
export interface RecoveryMail {
  /** `undone`: what an undone e-mail change took away, while its lock holds (the e-mail says it and asks to add them again). */
  sendPasswordReset(to: string, link: string, undone?: UndoRemovals | null): Promise<void>;
  sendEmailChangeCode(to: string, code: string): Promise<void>;
  /** To the old address once the change is made: what changed, and the link that undoes it. */
  sendEmailChangeUndo(to: string, newEmail: string, link: string): Promise<void>;
}

/** Where the e-mailed links point: the dashboard's pages. */
export const RECOVERY_LINK_BASE = Symbol('RECOVERY_LINK_BASE');

export const resetLink = (base: string, token: string): string => `${base.replace(/\/+$/, '')}/password-reset#token=${token}`;
export const undoLink = (base: string, token: string): string => `${base.replace(/\/+$/, '')}/email-change/undo#token=${token}`;

/** The messages through libs/mail (renderMail: plain text and HTML, no tracking). */
export class MailerRecoveryMail implements RecoveryMail {
  constructor(private readonly mailer: Mailer) {}

  async sendPasswordReset(to: string, link: string, undone: UndoRemovals | null = null): Promise<void> {
    const mail = renderMail({
      title: 'Reset your password',
      paragraphs: ['Someone asked to reset the password of your account. Open this link within an hour to choose a new one; it works once.', ...(undone ? [undoneNotice(undone)] : [])],
      link: { url: link, label: 'Choose a new password' },
      footer: 'If it was not you, ignore this e-mail: your password stays as it is.',
    });
    await this.mailer.send({ to, ...mail });
  }

  async sendEmailChangeCode(to: string, code: string): Promise<void> {
    const footer = 'If you did not ask to use this address, ignore this e-mail: nothing changes without the code.';
    await this.mailer.send(accountCodeMail(to, code, { title: 'Confirm your new e-mail address', purpose: 'to make this the address of your account', footer }));
  }

  async sendEmailChangeUndo(to: string, newEmail: string, link: string): Promise<void> {
    const mail = renderMail({
      title: 'Your e-mail address was changed',
      paragraphs: [
        `The e-mail address of your account is now ${newEmail}.`,
        'If you did not make this change, open this link within 7 days: it puts this address back, signs everyone out, removes every passkey of the account and turns two-step sign-in off (whoever changed the address may have added them). You will then choose a new password, after a day, and add your passkeys and two-step sign-in again.',
      ],
      link: { url: link, label: 'Undo the change' },
    });
    await this.mailer.send({ to, ...mail });
  }
}

/** What the reset e-mail says after an undone e-mail change: what was taken away, and that the owner adds it again. */
export function undoneNotice(undone: UndoRemovals): string {
  const removed = [
    undone.passkeys > 0 ? `removed ${undone.passkeys === 1 ? 'its passkey' : `its ${undone.passkeys} passkeys`}` : null,
    undone.twoFactor ? 'turned two-step sign-in off (its authenticator app and recovery codes no longer work)' : null,
  ].filter((part): part is string => part !== null);
  const intro = "When the change of your account's e-mail address was undone, we signed everyone out";
  if (removed.length === 0) return `${intro}.`;
  return `${intro}, ${removed.join(' and ')}: whoever changed the address may have added them. Once you have chosen a new password, add your passkeys and turn two-step sign-in on again in your account settings.`;
}
