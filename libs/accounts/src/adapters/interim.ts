import { hash, verify } from '@node-rs/argon2';
import { createTransport } from 'nodemailer';
import { DomainRefusal } from '@lib/domain';
import {
  AccountMail,
  AccountPasswords,
  AccountsClock,
  ChallengeCheck,
  ChallengeForm,
  EmailBudget,
  EmailUnavailable,
  PasswordFailures,
  PasswordGate,
  PasswordSubject,
  SignupCodeLimit,
} from '../ports';

/**
 * Stand-in implementations of the accounts ports, used until libs/passwords, libs/limits,
 * libs/mail and libs/challenge bind them (decision 0034): argon2id with the library's
 * defaults, the §8 failed-password ladder, the e-mail budget and the sign-up code limit in this
 * process's memory (one process only), SMTP through nodemailer at SMTP_URL, and a challenge that
 * accepts any token but "fail". AccountsModule uses them only where no other binding is given.
 */

const ARGON2ID = 2; // Algorithm.Argon2id (a const enum in the package's types)

export class Argon2Passwords implements AccountPasswords {
  hash(secret: string): Promise<string> {
    return hash(secret, { algorithm: ARGON2ID });
  }

  async verify(hashed: string, secret: string): Promise<boolean> {
    try {
      return await verify(hashed, secret);
    } catch {
      return false;
    }
  }

  async assertStrong(password: string, field: string): Promise<void> {
    if (password.length < 10) throw new DomainRefusal('weak_password', 'The password must be at least 10 characters long (length).', field);
    if (!/\p{L}/u.test(password)) throw new DomainRefusal('weak_password', 'The password must contain letters (no letters).', field);
    if (new Set(password).size < 4) throw new DomainRefusal('weak_password', 'The password repeats too few characters (repetition).', field);
  }
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The lock after `failures` failures in a row (spec §8), in milliseconds; 0 for none. */
export function ladderLockMs(failures: number): number {
  if (failures >= 20 && failures % 5 === 0) return HOUR;
  if (failures === 15) return 15 * MINUTE;
  if (failures === 10) return 5 * MINUTE;
  if (failures === 5) return MINUTE;
  return 0;
}

export const PASSWORD_DISABLED_AFTER = 100;

export class MemoryPasswordFailures implements PasswordFailures {
  private readonly counts = new Map<string, { failures: number; lockedUntil: number }>();

  constructor(private readonly clock: AccountsClock) {}

  private key(subject: PasswordSubject): string {
    return subject.kind === 'session' ? `session:${subject.sessionId}` : subject.knownDevice ? `device:${subject.email}:${subject.knownDevice}` : `email:${subject.email}`;
  }

  async check(subject: PasswordSubject): Promise<PasswordGate> {
    const entry = this.counts.get(this.key(subject));
    if (!entry) return { state: 'open' };
    if (subject.kind === 'email' && !subject.knownDevice && entry.failures >= PASSWORD_DISABLED_AFTER) return { state: 'disabled' };
    const now = this.clock().getTime();
    return entry.lockedUntil > now ? { state: 'locked', retryAfterSec: Math.ceil((entry.lockedUntil - now) / 1000) } : { state: 'open' };
  }

  async fail(subject: PasswordSubject): Promise<void> {
    const key = this.key(subject);
    const failures = (this.counts.get(key)?.failures ?? 0) + 1;
    this.counts.set(key, { failures, lockedUntil: this.clock().getTime() + ladderLockMs(failures) });
  }

  async clear(subject: PasswordSubject): Promise<void> {
    this.counts.delete(this.key(subject));
  }
}

/** Sliding windows of timestamps per key: `limits` of [count, window ms]. */
class Windows {
  private readonly seen = new Map<string, number[]>();

  constructor(
    private readonly clock: AccountsClock,
    private readonly limits: readonly [number, number][],
  ) {}

  blocked(key: string): number | null {
    const now = this.clock().getTime();
    const longest = Math.max(...this.limits.map(([, ms]) => ms));
    const times = (this.seen.get(key) ?? []).filter((t) => t > now - longest);
    this.seen.set(key, times);
    let until: number | null = null;
    for (const [count, ms] of this.limits) {
      const inWindow = times.filter((t) => t > now - ms);
      if (inWindow.length >= count) until = Math.max(until ?? 0, inWindow[inWindow.length - count] + ms);
    }
    return until === null ? null : Math.max(1, Math.ceil((until - now) / 1000));
  }

  note(key: string): void {
    this.seen.set(key, [...(this.seen.get(key) ?? []), this.clock().getTime()]);
  }
}

export class MemoryEmailBudget implements EmailBudget {
  private readonly windows: Windows;

  constructor(clock: AccountsClock) {
    this.windows = new Windows(clock, [
      [5, HOUR],
      [20, 24 * HOUR],
    ]);
  }

  async take(address: string): Promise<{ allowed: true } | { allowed: false; retryAfterSec: number }> {
    const key = address.toLowerCase();
    const wait = this.windows.blocked(key);
    if (wait !== null) return { allowed: false, retryAfterSec: wait };
    this.windows.note(key);
    return { allowed: true };
  }
}

export class MemorySignupCodeLimit implements SignupCodeLimit {
  private readonly windows: Windows;

  constructor(clock: AccountsClock) {
    this.windows = new Windows(clock, [[10, 24 * HOUR]]);
  }

  async check(address: string): Promise<{ allowed: true } | { allowed: false; retryAfterSec: number }> {
    const wait = this.windows.blocked(address.toLowerCase());
    return wait === null ? { allowed: true } : { allowed: false, retryAfterSec: wait };
  }

  async fail(address: string): Promise<void> {
    this.windows.note(address.toLowerCase());
  }
}

/** SMTP through nodemailer (SMTP_URL, e.g. smtp://127.0.0.1:2525); without one, e-mail is unavailable. */
export class SmtpAccountMail implements AccountMail {
  constructor(
    private readonly url: string | null,
    private readonly from = 'no-reply@payments.invalid',
  ) {}

  async sendSignupCode(to: string, code: string): Promise<void> {
    if (!this.url) throw new EmailUnavailable('SMTP_URL is not set');
    const transport = createTransport(this.url);
    try {
      await transport.sendMail({
        from: this.from,
        to,
        subject: 'Your sign-up code',
        text: `Your sign-up code is ${code}. It is valid for 15 minutes.\n\nIf you did not sign up, ignore this e-mail.`,
        html: `<p>Your sign-up code is <strong>${code}</strong>. It is valid for 15 minutes.</p><p>If you did not sign up, ignore this e-mail.</p>`,
      });
    } catch {
      throw new EmailUnavailable('the SMTP server did not take the message');
    } finally {
      transport.close();
    }
  }
}

/** Accepts any non-empty token but "fail" (local and simulated use only). */
export class PermissiveChallenge implements ChallengeCheck {
  async verify(token: string | undefined, _form: ChallengeForm): Promise<boolean> {
    return typeof token === 'string' && token !== '' && token !== 'fail';
  }
}
