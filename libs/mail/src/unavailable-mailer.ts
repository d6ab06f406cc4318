import { MailMessage, Mailer, MailUnavailableError } from './mailer';

/** The Mailer of a shared store without SMTP_URL: it sends nothing and says so (503 email_unavailable). */
export class UnavailableMailer implements Mailer {
  describe(): string {
    return 'nothing: SMTP_URL is not set, so flows that need an e-mail answer 503 email_unavailable';
  }

  async send(_message: MailMessage): Promise<void> {
    throw new MailUnavailableError('This deployment has no e-mail configured.');
  }

  async close(): Promise<void> {}
}
