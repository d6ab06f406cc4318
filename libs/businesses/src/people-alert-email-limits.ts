import type { PeopleLimits } from '@lib/limits';
import type { AlertEmailCodeRequest, AlertEmailLimits } from './business-mail';
import { DomainError } from './domain-error';

/**
 * The §8 limits on an alert e-mail's code, kept by @lib/limits (Redis when configured, else the
 * database): the e-mails per address (5 an hour, 20 a day, the budget of every code e-mailed)
 * always, and — when the code starts a new alert e-mail and a person started it (a dashboard
 * session's actor, `kind: 'person'`) — 3 new alert e-mails per person per hour across all
 * businesses. A new code for the address already pending starts nothing: only the address budget
 * (and the decider's one a minute, 5 in all). Past either, 429 too_many_emails with Retry-After,
 * and nothing is sent. API keys are no person: only the address budget applies.
 */
export class PeopleAlertEmailLimits implements AlertEmailLimits {
  constructor(private readonly limits: PeopleLimits) {}

  async beforeAlertEmailCode(request: AlertEmailCodeRequest): Promise<void> {
    const person = startingPerson(request);
    if (person !== null) {
      const started = await this.limits.startAlertEmail(person);
      // refused with the address's budget spent too: Retry-After is the longer wait (audit lim F2, addendum of 2026-11-30)
      if (!started.allowed) this.refuse(started, 'Too many new alert e-mails started from this account: wait before entering another.', await this.limits.emailWaitSec(request.email, 'code'));
    }
    const address = await this.limits.takeEmail(request.email, 'code');
    if (!address.allowed && person !== null) await this.limits.giveBackAlertEmail(person); // refused: nothing claimed
    this.refuse(address, 'Too many e-mails were sent to this address: wait before asking for another code.');
  }

  async waitSec(request: AlertEmailCodeRequest): Promise<number> {
    const person = startingPerson(request);
    const address = await this.limits.emailWaitSec(request.email, 'code');
    return person === null ? address : Math.max(address, await this.limits.alertEmailWaitSec(person));
  }

  async sent(): Promise<void> {}

  async giveBack(request: AlertEmailCodeRequest): Promise<void> {
    const person = startingPerson(request);
    if (person !== null) await this.limits.giveBackAlertEmail(person);
    await this.limits.giveBackEmail(request.email, 'code');
  }

  private refuse(decision: Awaited<ReturnType<PeopleLimits['takeEmail']>>, message: string, otherWaitSec = 0): void {
    if (decision.allowed) return;
    throw new DomainError('too_many_emails', message, 'alert_email', { retry_after: Math.max(decision.retryAfterSec ?? 60, otherWaitSec) });
  }
}

/** The person whose "3 new alert e-mails an hour" a code spends: one that starts an alert e-mail, asked by a person. */
function startingPerson({ actor, starts }: AlertEmailCodeRequest): string | null {
  return starts && actor?.kind === 'person' && actor.id ? actor.id : null;
}
