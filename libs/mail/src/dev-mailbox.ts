import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createTransport, Transporter } from 'nodemailer';
import type StreamTransport from 'nodemailer/lib/stream-transport';
import { MailMessage, Mailer, MailUnavailableError } from './mailer';

export interface DevMailboxOptions {
  /** The folder the messages go to (DATA_DIR/mail). */
  directory: string;
  /** The From header (MAIL_FROM). */
  from: string;
  /** Where "an e-mail is in <file>" is written (default: the Nest logger 'mail'): the path only, never the content. */
  log?: (line: string) => void;
}

/**
 * The Mailer of the embedded default (no DATABASE_URL, no SMTP_URL): each message becomes one
 * .eml file (RFC 5322, the same MIME nodemailer would send over SMTP) in DATA_DIR/mail, which
 * any mail client opens, so a newcomer can sign up locally and read the code. The log names the
 * file, never the code or the body. Files are readable by their owner only.
 */
export class DevMailbox implements Mailer {
  readonly directory: string;
  private readonly transport: Transporter<StreamTransport.SentMessageInfo>;
  private readonly log: (line: string) => void;

  constructor(private readonly options: DevMailboxOptions) {
    this.directory = resolve(options.directory);
    this.transport = createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
    const logger = new Logger('mail');
    this.log = options.log ?? ((line) => logger.log(line));
  }

  describe(): string {
    return `the dev mailbox ${this.directory} (one .eml file per message)`;
  }

  async send(message: MailMessage): Promise<void> {
    let file: string;
    try {
      const info = await this.transport.sendMail({ from: this.options.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
      await mkdir(this.directory, { recursive: true, mode: 0o700 });
      file = join(this.directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600, flag: 'wx' });
    } catch {
      this.log(`writing an e-mail to ${this.directory} failed`);
      throw new MailUnavailableError();
    }
    this.log(`an e-mail is in ${file}`);
  }

  async close(): Promise<void> {
    // nothing open between messages
  }
}
