import { join } from 'node:path';
import { DevMailbox } from './dev-mailbox';
import { Mailer } from './mailer';
import { SmtpMailer } from './smtp-mailer';
import { UnavailableMailer } from './unavailable-mailer';

export interface MailConfig {
  smtpUrl: string | null;
  mailFrom: string;
  /** True with the embedded store (no DATABASE_URL): the dev mailbox stands in for SMTP. */
  embedded: boolean;
  dataDir: string;
}

export type ConfiguredMailer = Mailer & { describe(): string };

/**
 * SMTP when SMTP_URL is set; else the dev mailbox DATA_DIR/mail with the embedded store (a
 * local run); else none — a shared store is a deployment, and writing its people's codes to a
 * local folder would lose them (decision 0032).
 */
export function createMailer(config: MailConfig): ConfiguredMailer {
  if (config.smtpUrl) return new SmtpMailer({ url: config.smtpUrl, from: config.mailFrom });
  if (config.embedded) return new DevMailbox({ directory: join(config.dataDir, 'mail'), from: config.mailFrom });
  return new UnavailableMailer();
}
