import { DomainRefusal } from '@lib/domain';

/** Nest token of the deployment's Mailer (MailModule provides it). */
export const MAILER = Symbol('MAILER');

/** One e-mail: both bodies, always (renderMail builds them from one description). */
export interface MailMessage {
  /** One recipient address. */
  to: string;
  subject: string;
  /** The plain-text body. */
  text: string;
  /** The HTML body: no images, no remote resources, no tracking (renderMail). */
  html: string;
}

/** The port: sends one message or throws MailUnavailableError. */
export interface Mailer {
  /** Resolves once the message is handed over (accepted by the SMTP server, or written to the dev mailbox). */
  send(message: MailMessage): Promise<void>;
  /** Releases connections (the app closes it on shutdown). */
  close(): Promise<void>;
}

/**
 * The deployment cannot send e-mail now: SMTP unreachable or refusing, or no mail configured.
 * A DomainRefusal with code email_unavailable, so a flow that cannot go on without the e-mail
 * just lets it through and the API answers 503 `email_unavailable` (spec §7). The message never
 * holds the SMTP URL, its credentials or the e-mail's content.
 */
export class MailUnavailableError extends DomainRefusal<'email_unavailable'> {
  override name = 'MailUnavailableError';

  constructor(message = 'E-mail cannot be sent now; try again later.') {
    super('email_unavailable', message);
  }
}
