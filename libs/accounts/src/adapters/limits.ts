import { AttemptDecision, LimitAttempt, LimitDecision, PeopleLimits } from '@lib/limits';
import type { Allowance, EmailBudget, LimitedAttempt, PasswordFailures, PasswordGate, PasswordSubject, SignupCodeLimit } from '../ports';

/**
 * The accounts ports over libs/limits' PeopleLimits (decision 0033: Redis when REDIS_URL is set,
 * the database otherwise; shared by every process): adapters only, the rules are theirs.
 */

const retry = (decision: LimitDecision | AttemptDecision): number => (decision.allowed ? 0 : (decision.retryAfterSec ?? 1));

/** A decision as the ports answer it: allowed, or refused with the seconds to wait (at least 1 when the limit names none). */
export function allowance(decision: LimitDecision): Allowance {
  return decision.allowed ? { allowed: true } : { allowed: false, retryAfterSec: retry(decision) };
}

/** A slot of the limits as the ports hold it (the failure's outcome is the limits' business). */
export function limitedAttempt(attempt: LimitAttempt): LimitedAttempt {
  return {
    failed: async () => {
      await attempt.failed();
    },
    succeeded: () => attempt.succeeded(),
    release: () => attempt.release(),
  };
}

function gate(decision: AttemptDecision): PasswordGate {
  if (decision.allowed) return { state: 'open', attempt: limitedAttempt(decision.attempt) };
  return decision.refused === 'password_reset_required' ? { state: 'disabled' } : { state: 'locked', retryAfterSec: retry(decision) };
}

/** PASSWORD_FAILURES: the ladder per address (and per known browser), and per session. */
export class LimitsPasswordFailures implements PasswordFailures {
  constructor(private readonly limits: PeopleLimits) {}

  async reserve(subject: PasswordSubject): Promise<PasswordGate> {
    return gate(subject.kind === 'email' ? await this.limits.reservePassword(subject.email, subject.browser) : await this.limits.currentPasswords.reserve(subject.sessionId));
  }

  async clear(subject: PasswordSubject): Promise<void> {
    if (subject.kind === 'email') await this.limits.passwordSucceeded(subject.email, subject.browser);
    else await this.limits.currentPasswords.succeeded(subject.sessionId);
  }

  signedIn(email: string, browser: string): Promise<void> {
    return this.limits.browserSignedIn(email, browser);
  }
}

/** EMAIL_BUDGET: e-mailed codes spend the address's budget (5 an hour, 20 a day). */
export class LimitsEmailBudget implements EmailBudget {
  constructor(private readonly limits: PeopleLimits) {}

  async take(address: string): Promise<Allowance> {
    return allowance(await this.limits.takeEmail(address, 'code'));
  }

  async giveBack(address: string): Promise<void> {
    await this.limits.giveBackEmail(address, 'code');
  }

  waitSec(address: string): Promise<number> {
    return this.limits.emailWaitSec(address, 'code');
  }
}

/** SIGNUP_CODE_LIMIT: 10 wrong sign-up codes a day per address. */
export class LimitsSignupCodes implements SignupCodeLimit {
  constructor(private readonly limits: PeopleLimits) {}

  async check(address: string): Promise<Allowance> {
    return allowance(await this.limits.checkSignupCode(address));
  }

  async fail(address: string): Promise<void> {
    await this.limits.signupCodeFailed(address);
  }
}
