import {
  emailBudgets,
  ladderLockMs,
  LIMIT_REFUSAL_STATUS,
  nextLadderStep,
  PASSWORD_LADDER,
  TWO_STEP_LADDER,
  limitRefusalMessage,
  EMAILS_PER_ADDRESS,
  passwordDisabled,
  passwordLockSec,
  PASSWORD_DISABLED_AFTER,
  RESET_LINKS_PER_ADDRESS,
  retryAfterSec,
  twoStepLockSec,
} from '@lib/limits';

/** given(n failures in a row).when(one more fails).then(lock seconds, disabled). */
function given(failures: number) {
  return {
    when: (_: 'one more fails') => {
      const count = failures + 1;
      return {
        then: (expected: { lockSec: number | null; disabled: boolean }) => {
          expect({ lockSec: passwordLockSec(count), disabled: passwordDisabled(count) }).toEqual(expected);
        },
      };
    },
  };
}

describe('failed-password ladder', () => {
  it.each([
    [3, null],
    [4, 60],
    [8, null],
    [9, 300],
    [13, null],
    [14, 900],
    [18, null],
    [19, 3600],
    [23, null],
    [24, 3600],
    [28, null],
    [29, 3600],
    [97, null],
  ])('given %i failures, when one more fails, then the lock is %p seconds and the password still works', (failures, lockSec) => {
    given(failures).when('one more fails').then({ lockSec, disabled: false });
  });

  it('given 98 failures, when the 99th fails, then nothing locks and the password works', () => {
    given(98).when('one more fails').then({ lockSec: null, disabled: false });
  });

  it('given 99 failures, when the 100th fails, then an hour lock and the password stops working', () => {
    given(99).when('one more fails').then({ lockSec: 3600, disabled: true });
  });

  it('given 100 failures, when more fail, then it stays disabled, locking an hour every 5', () => {
    given(100).when('one more fails').then({ lockSec: null, disabled: true });
    given(104).when('one more fails').then({ lockSec: 3600, disabled: true });
  });

  it('locks at the thresholds only: 4/5, 9/10, 14/15, 19/20, 24/25, 99/100', () => {
    const pairs = [4, 9, 14, 19, 24, 99].map((n) => [passwordLockSec(n), passwordLockSec(n + 1)]);
    expect(pairs).toEqual([
      [null, 60],
      [null, 300],
      [null, 900],
      [null, 3600],
      [null, 3600],
      [null, 3600],
    ]);
    expect(PASSWORD_DISABLED_AFTER).toBe(100);
    expect([passwordDisabled(99), passwordDisabled(100)]).toEqual([false, true]);
  });

  it('no lock for zero, negative or fractional counts', () => {
    expect([0, -5, 5.5].map(passwordLockSec)).toEqual([null, null, null]);
  });
});

describe('two-step codes', () => {
  it('given 4 wrong codes, when the 5th is wrong, then codes lock 15 minutes; every 5th after too', () => {
    expect([4, 5, 6, 9, 10].map(twoStepLockSec)).toEqual([null, 900, null, null, 900]);
  });
});

describe('e-mail budgets', () => {
  it('every e-mail spends 5 an hour and 20 a day; a reset link also 3 an hour', () => {
    expect(EMAILS_PER_ADDRESS.map((b) => [b.limit, b.windowSec])).toEqual([
      [5, 3600],
      [20, 86400],
    ]);
    expect(emailBudgets('code')).toEqual(EMAILS_PER_ADDRESS);
    expect(emailBudgets('password_reset')).toEqual([...EMAILS_PER_ADDRESS, RESET_LINKS_PER_ADDRESS]);
    expect([RESET_LINKS_PER_ADDRESS.limit, RESET_LINKS_PER_ADDRESS.windowSec]).toEqual([3, 3600]);
  });
});

describe('Retry-After', () => {
  it('whole seconds, rounded up, at least 1', () => {
    expect(retryAfterSec(60_000, 0)).toBe(60);
    expect(retryAfterSec(60_001, 0)).toBe(61);
    expect(retryAfterSec(10, 0)).toBe(1);
    expect(retryAfterSec(0, 10)).toBe(1);
  });
});

describe('refusal codes', () => {
  it('are the §7 codes with their statuses', () => {
    expect(LIMIT_REFUSAL_STATUS).toEqual({ too_many_attempts: 429, too_many_emails: 429, password_reset_required: 403 });
  });
});

describe('refusal messages', () => {
  it('say what happened and how long to wait', () => {
    expect(limitRefusalMessage({ refused: 'too_many_attempts', retryAfterSec: 60 })).toBe('Too many attempts. Try again in 60 seconds.');
    expect(limitRefusalMessage({ refused: 'too_many_emails', retryAfterSec: 1 })).toBe('Too many e-mails sent. Try again in 1 second.');
    expect(limitRefusalMessage({ refused: 'password_reset_required', retryAfterSec: null })).toBe('Password no longer works after too many failed attempts; reset it.');
  });
});

describe('the ladders the stores lock by, and the attempts they let in flight', () => {
  it('lock at the same counts and for as long as passwordLockSec and twoStepLockSec say', () => {
    for (let n = 0; n <= 200; n++) {
      expect([n, ladderLockMs(PASSWORD_LADDER, n)]).toEqual([n, passwordLockSec(n) === null ? null : passwordLockSec(n)! * 1000]);
      expect([n, ladderLockMs(TWO_STEP_LADDER, n)]).toEqual([n, twoStepLockSec(n) === null ? null : twoStepLockSec(n)! * 1000]);
    }
  });

  it.each([
    [0, 5],
    [4, 5],
    [5, 10],
    [97, 100],
    [99, 100],
  ])('given %i failures, failures + attempts in flight stay below %i (the next lock; never past the disabling at 100)', (failures, step) => {
    expect(nextLadderStep({ ...PASSWORD_LADDER, refuseFrom: PASSWORD_DISABLED_AFTER }, failures)).toBe(step);
  });

  it('a count that never disables (a known browser, a session) goes on by fives past 100', () => {
    expect(nextLadderStep(PASSWORD_LADDER, 100)).toBe(105);
    expect(nextLadderStep(PASSWORD_LADDER, 103)).toBe(105);
  });
});
