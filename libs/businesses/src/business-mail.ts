import type { Actor } from '@lib/eventstore';
import { MailUnavailableError, type Mailer } from '@lib/mail';

/**
 * What the businesses capability e-mails (alert address codes, alerts): one message, plain text
 * and HTML, no tracking. A port: the composition root binds it to the service's mail library
 * (libs/mail `MAILER` through an adapter) or, until one is configured, to NoBusinessMail, which
 * refuses (503 email_unavailable where a flow cannot go on without the e-mail).
 */
export interface BusinessMailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface BusinessMail {
  /** Sends one message; throws BusinessMailUnavailableError when the deployment cannot send now. */
  send(message: BusinessMailMessage): Promise<void>;
}

export const BUSINESS_MAIL = Symbol('BUSINESS_MAIL');

/** The deployment cannot send e-mail now (no mail server configured, or it is down). */
export class BusinessMailUnavailableError extends Error {
  override name = 'BusinessMailUnavailableError';
}

/** The port over the service's mail library (libs/mail MAILER): its MailUnavailableError is this port's unavailability. */
export class MailerBusinessMail implements BusinessMail {
  constructor(private readonly mailer: Mailer) {}

  async send(message: BusinessMailMessage): Promise<void> {
    try {
      await this.mailer.send({ to: message.to, subject: message.subject, text: message.text, html: message.html });
    } catch (error) {
      if (error instanceof MailUnavailableError) throw new BusinessMailUnavailableError(error.message);
      throw error;
    }
  }
}

/** A binding that refuses every send as unavailable. */
export class NoBusinessMail implements BusinessMail {
  async send(): Promise<void> {
    throw new BusinessMailUnavailableError('No mail server is configured for this deployment.');
  }
}

/**
 * The limits on new alert e-mails that depend on people (spec §8: "3 new alert e-mails per person
 * per hour across all businesses"; "E-mails per address: 5 an hour and 20 a day") — an extension
 * point the people capability binds (ALERT_EMAIL_LIMITS). `beforeAlertEmailCode` runs before a
 * code is e-mailed and throws a DomainRefusal (429 too_many_emails, Retry-After) past a limit;
 * `sent` counts a message once sent. BusinessesModule binds PeopleAlertEmailLimits (@lib/limits);
 * NoAlertEmailLimits keeps only the rules the business decider has (one code a minute, 5 per
 * pending address).
 */
export interface AlertEmailCodeRequest {
  businessId: string;
  email: string;
  actor: Actor | null;
  /**
   * True when the code starts a new alert e-mail (an address that was not pending, or whose 24
   * hours had ended); false for a new code for the address already pending, which the decider
   * limits on its own (a minute after the last, 5 in all) and which starts nothing.
   */
  starts: boolean;
}

export interface AlertEmailLimits {
  beforeAlertEmailCode(request: AlertEmailCodeRequest): Promise<void>;
  sent(request: AlertEmailCodeRequest): Promise<void>;
  /**
   * Gives back what beforeAlertEmailCode took when no code was e-mailed after all: the request
   * lost the race for the business's stream and was refused, or SMTP refused the e-mail (a
   * refusal claims nothing; decision 0035, addendum of 2026-11-29).
   */
  giveBack(request: AlertEmailCodeRequest): Promise<void>;
  /**
   * Seconds until the limits would let `request`'s code be sent (0: now), taking nothing: a
   * refusal for another reason (a minute after the last code) carries the longer of its own wait
   * and this one as Retry-After (decision 0035, addendum of 2026-11-30, audit lim F2).
   */
  waitSec(request: AlertEmailCodeRequest): Promise<number>;
}

export const ALERT_EMAIL_LIMITS = Symbol('ALERT_EMAIL_LIMITS');

export class NoAlertEmailLimits implements AlertEmailLimits {
  async beforeAlertEmailCode(): Promise<void> {}
  async sent(): Promise<void> {}
  async giveBack(): Promise<void> {}
  async waitSec(): Promise<number> {
    return 0;
  }
}

/** A mail port that keeps what it is given (tests, local runs): `messages` in order. */
export class CapturingBusinessMail implements BusinessMail {
  readonly messages: BusinessMailMessage[] = [];
  /** While true, sends fail as unavailable (nothing kept). */
  down = false;
  async send(message: BusinessMailMessage): Promise<void> {
    if (this.down) throw new BusinessMailUnavailableError('mail is down (test)');
    this.messages.push({ ...message });
  }
}
