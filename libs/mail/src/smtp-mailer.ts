import { Logger } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { MailMessage, Mailer, MailUnavailableError } from './mailer';

export interface SmtpMailerOptions {
  /** smtp://user:pass@host:port (STARTTLS when the server offers it) or smtps://…:465 (TLS from the start). */
  url: string;
  /** The From header (MAIL_FROM). */
  from: string;
  /** Longest wait for the TCP connection, the greeting, and any reply (ms); defaults 10 s, 10 s, 30 s. */
  connectionTimeoutMs?: number;
  greetingTimeoutMs?: number;
  socketTimeoutMs?: number;
  /** Where failures are written (default: the Nest logger 'mail'); never given credentials or content. */
  log?: (line: string) => void;
}

/** host:port of an SMTP URL: what logs and errors may name (never the user or password). */
export function smtpEndpoint(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'smtps:' ? '465' : '587');
  return `${parsed.protocol}//${parsed.hostname}:${port}`;
}

/**
 * The Mailer over SMTP, through nodemailer. Any failure to hand the message over — the server
 * unreachable, a timeout, a refused login, a refused sender or recipient, a 4xx/5xx reply —
 * becomes MailUnavailableError, whose message names neither the URL's credentials nor the
 * message (decision 0032). The URL is taken apart here so nodemailer never sees it as a string
 * it might echo.
 */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo>;
  private readonly endpoint: string;
  private readonly log: (line: string) => void;

  constructor(private readonly options: SmtpMailerOptions) {
    const url = new URL(options.url);
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error('SMTP URL must start with smtp:// or smtps://');
    const secure = url.protocol === 'smtps:';
    this.endpoint = smtpEndpoint(options.url);
    const logger = new Logger('mail');
    this.log = options.log ?? ((line) => logger.warn(line));
    this.transport = createTransport({
      host: url.hostname,
      port: url.port ? Number(url.port) : secure ? 465 : 587,
      secure,
      auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
      connectionTimeout: options.connectionTimeoutMs ?? 10_000,
      greetingTimeout: options.greetingTimeoutMs ?? 10_000,
      socketTimeout: options.socketTimeoutMs ?? 30_000,
      logger: false,
      debug: false,
    });
  }

  /** scheme://host:port of the server, for the start-up log line. */
  describe(): string {
    return `SMTP ${this.endpoint}`;
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.transport.sendMail({ from: this.options.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
    } catch (error) {
      const e = error as { code?: string; responseCode?: number };
      const what = [e.code, e.responseCode].filter((x) => x !== undefined).join(' ') || 'error';
      this.log(`sending an e-mail through ${this.endpoint} failed (${what})`);
      throw new MailUnavailableError();
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
