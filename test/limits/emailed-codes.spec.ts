import { EMAILED_CODE_RULES, emailedCodeAttempt, emailedCodeResend } from '@lib/limits';

const T0 = Date.parse('2026-11-27T12:00:00Z');
const SEC = 1000;

describe('e-mailed code attempts', () => {
  it('the rules are §8\'s: 5 wrong tries, a new code a minute after the last, 5 per flow, valid 15 minutes', () => {
    expect(EMAILED_CODE_RULES).toEqual({ wrongTriesPerCode: 5, resendAfterSec: 60, codesPerFlow: 5, validForSec: 900 });
  });

  it('given 4 wrong tries, when a 5th code is typed, then it is checked', () => {
    expect(emailedCodeAttempt({ sentAtMs: T0, wrongTries: 4 }, T0 + 10 * SEC)).toEqual({ check: true });
  });

  it('given 5 wrong tries, when a code is typed, then 429 too_many_attempts with Retry-After until the dead code expires (audit lim F1, 2026-11-30)', () => {
    expect(emailedCodeAttempt({ sentAtMs: T0, wrongTries: 5 }, T0 + 10 * SEC)).toEqual({ check: false, refused: 'too_many_attempts', retryAfterSec: 890 });
    expect(emailedCodeAttempt({ sentAtMs: T0, wrongTries: 5 }, T0 + 10 * 60 * SEC)).toEqual({ check: false, refused: 'too_many_attempts', retryAfterSec: 300 });
    expect(emailedCodeAttempt({ sentAtMs: T0, wrongTries: 5 }, T0 + 900 * SEC - 1)).toEqual({ check: false, refused: 'too_many_attempts', retryAfterSec: 1 });
  });

  it('given 5 wrong tries and a code sent 15 minutes ago, then code_expired (the lock never outlives the code)', () => {
    expect(emailedCodeAttempt({ sentAtMs: T0, wrongTries: 5 }, T0 + 900 * SEC)).toEqual({ check: false, refused: 'code_expired' });
    expect(emailedCodeAttempt({ sentAtMs: T0, wrongTries: 7 }, T0 + 3600 * SEC)).toEqual({ check: false, refused: 'code_expired' });
  });

  it('given a code sent 15 minutes ago, when typed, then code_expired; a millisecond before, checked', () => {
    expect(emailedCodeAttempt({ sentAtMs: T0, wrongTries: 0 }, T0 + 900 * SEC - 1)).toEqual({ check: true });
    expect(emailedCodeAttempt({ sentAtMs: T0, wrongTries: 0 }, T0 + 900 * SEC)).toEqual({ check: false, refused: 'code_expired' });
  });
});

describe('e-mailed code resends', () => {
  it('the first code is sent', () => {
    expect(emailedCodeResend({ codesSent: 0, lastSentAtMs: null }, T0)).toEqual({ send: true });
  });

  it('given a code sent 59 s ago, a new one waits (429 too_many_emails, Retry-After 1); at 60 s it is sent', () => {
    expect(emailedCodeResend({ codesSent: 1, lastSentAtMs: T0 }, T0 + 59 * SEC)).toEqual({ send: false, refused: 'too_many_emails', retryAfterSec: 1 });
    expect(emailedCodeResend({ codesSent: 1, lastSentAtMs: T0 }, T0 + 60 * SEC)).toEqual({ send: true });
  });

  it('given 4 codes, a 5th is sent; given 5, no more in this flow', () => {
    expect(emailedCodeResend({ codesSent: 4, lastSentAtMs: T0 }, T0 + 3600 * SEC)).toEqual({ send: true });
    expect(emailedCodeResend({ codesSent: 5, lastSentAtMs: T0 }, T0 + 3600 * SEC)).toEqual({ send: false, refused: 'too_many_emails', retryAfterSec: null });
  });
});
