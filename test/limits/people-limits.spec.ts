import { LimitDecision, PeopleLimits } from '@lib/limits';
import { LimitsBackend, openBackend, testClock } from './backends';

const SEC = 1000;
const MINUTE = 60 * SEC;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const allowed: LimitDecision = { allowed: true };
const attempts = (retryAfterSec: number): LimitDecision => ({ allowed: false, refused: 'too_many_attempts', retryAfterSec });
const emails = (retryAfterSec: number): LimitDecision => ({ allowed: false, refused: 'too_many_emails', retryAfterSec });
const resetRequired: LimitDecision = { allowed: false, refused: 'password_reset_required', retryAfterSec: null };

describe.each(['postgres', 'embedded', 'redis'] as const)('people limits on %s', (name) => {
  let backend: LimitsBackend;
  let clock: ReturnType<typeof testClock>;
  let limits: PeopleLimits;
  /** The same limits seen from another process sharing the store. */
  let replica: PeopleLimits;

  beforeAll(async () => {
    backend = await openBackend(name);
  });
  afterAll(() => backend.close());
  beforeEach(() => {
    clock = testClock();
    const prefix = backend.prefix();
    limits = new PeopleLimits(backend.store, { time: clock.time, prefix });
    replica = new PeopleLimits(backend.replica, { time: clock.time, prefix });
  });

  /** Fails `n` passwords, moving the clock past each lock so every failure is a real attempt. */
  async function failPasswords(email: string, n: number, browserId?: string) {
    let last;
    for (let i = 0; i < n; i++) {
      last = await limits.passwordFailed(email, browserId);
      if (last.lockSec) clock.advance(last.lockSec * SEC);
    }
    return last!;
  }

  describe('failed passwords per e-mail', () => {
    it('given 4 failures, the 5th locks 1 minute (429 too_many_attempts, Retry-After 60); the clock releases it', async () => {
      for (let i = 0; i < 4; i++) expect((await limits.passwordFailed('ann@example.com')).next).toEqual(allowed);
      expect(await limits.checkPassword('ann@example.com')).toEqual(allowed);
      const fifth = await limits.passwordFailed('ann@example.com');
      expect(fifth).toEqual({ failures: 5, lockSec: 60, next: attempts(60) });
      expect(await limits.checkPassword('ann@example.com')).toEqual(attempts(60));
      expect(await replica.checkPassword('ANN@example.com ')).toEqual(attempts(60));
      clock.advance(59_500);
      expect(await limits.checkPassword('ann@example.com')).toEqual(attempts(1));
      clock.advance(500);
      expect(await limits.checkPassword('ann@example.com')).toEqual(allowed);
    });

    it('10 lock 5 minutes, 15 lock 15 minutes, 20 and every 5 after lock an hour', async () => {
      await failPasswords('bea@example.com', 9);
      expect((await limits.passwordFailed('bea@example.com')).lockSec).toBe(300);
      expect(await limits.checkPassword('bea@example.com')).toEqual(attempts(300));
      clock.advance(300 * SEC);
      await failPasswords('bea@example.com', 4);
      expect((await limits.passwordFailed('bea@example.com')).lockSec).toBe(900);
      clock.advance(900 * SEC);
      await failPasswords('bea@example.com', 4);
      expect((await limits.passwordFailed('bea@example.com')).lockSec).toBe(3600);
      expect(await limits.checkPassword('bea@example.com')).toEqual(attempts(3600));
      clock.advance(3600 * SEC);
      await failPasswords('bea@example.com', 4);
      expect(await limits.passwordFailed('bea@example.com')).toEqual({ failures: 25, lockSec: 3600, next: attempts(3600) });
    });

    it('after 100 failures the password stops working until reset (403 password_reset_required), even after the lock', async () => {
      const ninetyNinth = await failPasswords('cy@example.com', 99);
      expect(ninetyNinth).toEqual({ failures: 99, lockSec: null, next: allowed });
      expect(await limits.checkPassword('cy@example.com')).toEqual(allowed);
      expect(await limits.passwordFailed('cy@example.com')).toEqual({ failures: 100, lockSec: 3600, next: resetRequired });
      expect(await limits.checkPassword('cy@example.com')).toEqual(resetRequired);
      clock.advance(30 * DAY);
      expect(await replica.checkPassword('cy@example.com')).toEqual(resetRequired);
      await limits.passwordReset('cy@example.com');
      expect(await limits.checkPassword('cy@example.com')).toEqual(allowed);
      expect((await limits.passwordFailed('cy@example.com')).failures).toBe(1);
    });

    it('success clears the count', async () => {
      await failPasswords('dee@example.com', 4);
      await limits.passwordSucceeded('dee@example.com');
      expect(await limits.passwordFailed('dee@example.com')).toEqual({ failures: 1, lockSec: null, next: allowed });
    });

    it('20 concurrent failures from two processes all count: the e-mail is then locked an hour', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? replica : limits).passwordFailed('eve@example.com')));
      expect(results.map((r) => r.failures).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await limits.checkPassword('eve@example.com')).toEqual(attempts(3600));
    });
  });

  describe('a browser that signed in before', () => {
    it('keeps its own count: locked out e-mail, the owner\'s browser still signs in; its count locks but never disables', async () => {
      await limits.browserSignedIn('fay@example.com', 'browser-of-fay');
      await failPasswords('fay@example.com', 100); // an attacker elsewhere
      expect(await limits.checkPassword('fay@example.com')).toEqual(resetRequired);
      expect(await limits.checkPassword('fay@example.com', 'another-browser')).toEqual(resetRequired);
      expect(await limits.checkPassword('fay@example.com', 'browser-of-fay')).toEqual(allowed);

      // the browser's own count follows the same locks
      for (let i = 0; i < 4; i++) await limits.passwordFailed('fay@example.com', 'browser-of-fay');
      expect((await limits.passwordFailed('fay@example.com', 'browser-of-fay')).next).toEqual(attempts(60));
      expect(await limits.checkPassword('fay@example.com', 'browser-of-fay')).toEqual(attempts(60));
      clock.advance(60 * SEC);
      const hundredth = await failPasswords('fay@example.com', 95, 'browser-of-fay');
      expect(hundredth).toEqual({ failures: 100, lockSec: 3600, next: attempts(3600) });
      clock.advance(3600 * SEC);
      expect(await limits.checkPassword('fay@example.com', 'browser-of-fay')).toEqual(allowed);
    });

    it('its failures do not count on the e-mail; its success clears only its own count', async () => {
      await limits.browserSignedIn('gus@example.com', 'browser-of-gus');
      await failPasswords('gus@example.com', 3, 'browser-of-gus');
      await failPasswords('gus@example.com', 4);
      await limits.passwordSucceeded('gus@example.com', 'browser-of-gus');
      expect((await limits.passwordFailed('gus@example.com')).failures).toBe(5);
      expect((await limits.passwordFailed('gus@example.com', 'browser-of-gus')).failures).toBe(1);
    });

    it('a correct password alone does not make a browser known: only a completed sign-in does; it is forgotten 180 days after', async () => {
      await limits.passwordSucceeded('ivy@example.com', 'browser-of-ivy');
      await failPasswords('ivy@example.com', 4);
      expect((await limits.passwordFailed('ivy@example.com', 'browser-of-ivy')).failures).toBe(5);
      await limits.passwordSucceeded('ivy@example.com', 'browser-of-ivy');
      await limits.browserSignedIn('ivy@example.com', 'browser-of-ivy');
      clock.advance(180 * DAY - 1);
      expect((await limits.passwordFailed('ivy@example.com', 'browser-of-ivy')).failures).toBe(1);
      expect((await limits.passwordFailed('ivy@example.com')).failures).toBe(1);
      clock.advance(1);
      expect((await limits.passwordFailed('ivy@example.com', 'browser-of-ivy')).failures).toBe(2);
    });

    it('a browser id never seen with this e-mail counts on the e-mail', async () => {
      await limits.browserSignedIn('hal@example.com', 'browser-of-hal');
      await failPasswords('other@example.com', 4, 'browser-of-hal');
      expect((await limits.passwordFailed('other@example.com', 'browser-of-hal')).next).toEqual(attempts(60));
      expect(await limits.checkPassword('other@example.com')).toEqual(attempts(60));
    });
  });

  describe('wrong current passwords per session', () => {
    it('same locks, never disabling; success clears', async () => {
      for (let i = 0; i < 4; i++) await limits.currentPasswords.failed('ses_1');
      expect((await limits.currentPasswords.failed('ses_1')).next).toEqual(attempts(60));
      expect(await replica.currentPasswords.check('ses_1')).toEqual(attempts(60));
      expect(await limits.currentPasswords.check('ses_2')).toEqual(allowed);
      clock.advance(60 * SEC);
      let last;
      for (let i = 0; i < 95; i++) {
        last = await limits.currentPasswords.failed('ses_1');
        if (last.lockSec) clock.advance(last.lockSec * SEC);
      }
      expect(last).toEqual({ failures: 100, lockSec: 3600, next: attempts(3600) });
      expect(await limits.currentPasswords.check('ses_1')).toEqual(allowed);
      await limits.currentPasswords.succeeded('ses_1');
      expect((await limits.currentPasswords.failed('ses_1')).failures).toBe(1);
    });
  });

  describe('two-step codes per person', () => {
    it('5 wrong codes across all challenges lock codes for 15 minutes', async () => {
      for (let i = 0; i < 4; i++) expect((await limits.twoStepCodes.failed('per_1')).next).toEqual(allowed);
      expect(await limits.twoStepCodes.failed('per_1')).toEqual({ failures: 5, lockSec: 900, next: attempts(900) });
      expect(await replica.twoStepCodes.check('per_1')).toEqual(attempts(900));
      expect(await limits.twoStepCodes.check('per_2')).toEqual(allowed);
      clock.advance(15 * MINUTE);
      expect(await limits.twoStepCodes.check('per_1')).toEqual(allowed);
      await limits.twoStepCodes.succeeded('per_1');
      expect((await limits.twoStepCodes.failed('per_1')).failures).toBe(1);
    });
  });

  describe('attempts in flight: a slot while verifying, never more than the failures left before the next lock', () => {
    /** A verification that takes a few event-loop turns, as argon2 does. */
    const verifying = () => new Promise((resolve) => setTimeout(resolve, 5));

    it('12 concurrent wrong passwords on one address from two processes: 5 verified and counted (the 5th locks), 7 refused 429 too_many_attempts', async () => {
      const answers = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const decision = await (i % 2 ? replica : limits).reservePassword('ned@example.com');
          if (!decision.allowed) return decision;
          await verifying();
          return (await decision.attempt.failed()).next;
        }),
      );
      expect(answers.filter((a) => a.allowed)).toHaveLength(4); // the first 4 failures: the next attempt allowed
      expect(answers.filter((a) => !a.allowed)).toEqual(Array(8).fill(attempts(60))); // the 5th failure's answer, and the 7 refused
      expect(await limits.checkPassword('ned@example.com')).toEqual(attempts(60));
      expect(await limits.reservePassword('ned@example.com')).toEqual(attempts(60));
      clock.advance(MINUTE);
      expect((await limits.reservePassword('ned@example.com')).allowed).toBe(true);
    });

    it('16 concurrent right passwords of one person all get a slot in turn (waiting while 5 are in flight): none counted, none locked', async () => {
      await failPasswords('ora@example.com', 3);
      const answers = await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const decision = await (i % 2 ? replica : limits).reservePassword('ora@example.com');
          if (!decision.allowed) return decision;
          await verifying();
          await decision.attempt.succeeded();
          return allowed;
        }),
      );
      expect(answers).toEqual(Array(16).fill(allowed));
      expect((await limits.passwordFailed('ora@example.com')).failures).toBe(1);
    });

    it('a known browser reserves on its own count: the e-mail locked or disabled does not refuse it', async () => {
      await limits.browserSignedIn('pia@example.com', 'browser-of-pia');
      await failPasswords('pia@example.com', 100);
      expect(await limits.reservePassword('pia@example.com')).toEqual(resetRequired);
      const own = await limits.reservePassword('pia@example.com', 'browser-of-pia');
      if (!own.allowed) throw new Error('refused');
      expect((await own.attempt.failed()).failures).toBe(1);
      expect(await limits.checkPassword('pia@example.com')).toEqual(resetRequired);
    });

    it('all slots in flight and never ended: the next attempt waits busyWaitMs, then 429 too_many_attempts Retry-After 1; released slots free it; expired ones too', async () => {
      const impatient = new PeopleLimits(backend.store, { time: clock.time, prefix: backend.prefix(), busyWaitMs: 60 });
      const held = await Promise.all(Array.from({ length: 5 }, () => impatient.currentPasswords.reserve('ses_9')));
      expect(held.every((d) => d.allowed)).toBe(true);
      expect(await impatient.currentPasswords.reserve('ses_9')).toEqual(attempts(1));
      const first = held[0] as Extract<typeof held[0], { allowed: true }>;
      await first.attempt.release();
      await first.attempt.release(); // a second release does nothing
      const freed = await impatient.currentPasswords.reserve('ses_9');
      expect(freed.allowed).toBe(true);
      expect(await impatient.currentPasswords.reserve('ses_9')).toEqual(attempts(1));
      clock.advance(30 * SEC);
      expect((await impatient.currentPasswords.reserve('ses_9')).allowed).toBe(true);
      // ended once: a release after failed frees nothing more, a second end is a programming error
      if (!freed.allowed) throw new Error('refused');
      expect((await freed.attempt.failed()).failures).toBe(1);
      await freed.attempt.release();
      await expect(freed.attempt.succeeded()).rejects.toThrow('ended once');
    });

    it('two-step codes: 12 concurrent wrong codes are 5 counted (the 5th locks codes 15 minutes), 7 refused', async () => {
      const answers = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const decision = await (i % 2 ? replica : limits).twoStepCodes.reserve('per_9');
          if (!decision.allowed) return 'refused';
          await verifying();
          return (await decision.attempt.failed()).failures;
        }),
      );
      expect(answers.filter((a) => a === 'refused')).toHaveLength(7);
      expect(answers.filter((a) => a !== 'refused').sort()).toEqual([1, 2, 3, 4, 5]);
      expect(await limits.twoStepCodes.reserve('per_9')).toEqual(attempts(900));
    });
  });

  describe('e-mails per address', () => {
    it('5 an hour: the 6th is refused with Retry-After until the hour ends, then allowed', async () => {
      for (let i = 0; i < 5; i++) {
        expect(await limits.mailBudget.take('ida@example.com', 'code')).toEqual(allowed);
        clock.advance(MINUTE);
      }
      expect(await limits.takeEmail('Ida@Example.com', 'notice')).toEqual(emails(55 * 60));
      expect(await limits.takeEmail('other@example.com', 'code')).toEqual(allowed);
      clock.advance(55 * MINUTE);
      expect(await limits.takeEmail('ida@example.com', 'code')).toEqual(allowed);
    });

    it('20 a day', async () => {
      for (let hour = 0; hour < 4; hour++) {
        for (let i = 0; i < 5; i++) expect(await limits.takeEmail('jo@example.com', 'code')).toEqual(allowed);
        clock.advance(HOUR);
      }
      expect(await limits.takeEmail('jo@example.com', 'code')).toEqual(emails(20 * 3600));
      clock.advance(20 * HOUR);
      expect(await limits.takeEmail('jo@example.com', 'code')).toEqual(allowed);
    });

    it('at most 3 reset links an hour; a refused e-mail spends nothing', async () => {
      for (let i = 0; i < 3; i++) expect(await limits.takeEmail('kim@example.com', 'password_reset')).toEqual(allowed);
      expect(await limits.takeEmail('kim@example.com', 'password_reset')).toEqual(emails(3600));
      expect(await limits.takeEmail('kim@example.com', 'code')).toEqual(allowed);
      expect(await limits.takeEmail('kim@example.com', 'code')).toEqual(allowed);
      expect(await limits.takeEmail('kim@example.com', 'code')).toEqual(emails(3600));
    });

    it('20 concurrent sends from two processes: exactly 5 go out', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? replica : limits).takeEmail('lou@example.com', 'code')));
      expect(results.filter((r) => r.allowed)).toHaveLength(5);
    });
  });

  describe('sign-up codes per address', () => {
    it('10 wrong codes a day, then 429 too_many_attempts until the day (from the first) ends', async () => {
      for (let i = 0; i < 9; i++) {
        expect((await limits.signupCodeFailed('max@example.com')).next).toEqual(allowed);
        clock.advance(HOUR);
      }
      expect(await limits.checkSignupCode('max@example.com')).toEqual(allowed);
      expect(await limits.signupCodeFailed('max@example.com')).toEqual({ failures: 10, lockSec: null, next: attempts(15 * 3600) });
      expect(await replica.checkSignupCode('MAX@example.com')).toEqual(attempts(15 * 3600));
      clock.advance(15 * HOUR);
      expect(await limits.checkSignupCode('max@example.com')).toEqual(allowed);
    });
  });

  describe('per person budgets', () => {
    it('e-mail changes: 3 started per hour (429 too_many_emails)', async () => {
      for (let i = 0; i < 3; i++) expect(await limits.startEmailChange('per_a')).toEqual(allowed);
      expect(await replica.startEmailChange('per_a')).toEqual(emails(3600));
      expect(await limits.startEmailChange('per_b')).toEqual(allowed);
      expect(await limits.startAlertEmail('per_a')).toEqual(allowed);
      clock.advance(HOUR);
      expect(await limits.startEmailChange('per_a')).toEqual(allowed);
    });

    it('new alert e-mails: 3 started per hour across all businesses', async () => {
      for (let i = 0; i < 3; i++) expect(await limits.startAlertEmail('per_c')).toEqual(allowed);
      expect(await limits.startAlertEmail('per_c')).toEqual(emails(3600));
    });
  });

  it('refuses empty subjects: a programming error, not a limit', async () => {
    await expect(limits.checkPassword('')).rejects.toThrow('empty e-mail');
    await expect(limits.startEmailChange('')).rejects.toThrow('empty person id');
  });
});
