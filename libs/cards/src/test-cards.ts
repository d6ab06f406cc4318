import type { CardDeclineCode } from './processor.port';

/**
 * The simulated processors' test cards (decision 0026; also listed on the simulated secure
 * page). Any other number that passes the Luhn check succeeds.
 */
export type TestCardBehaviour =
  | { kind: 'succeed' }
  | { kind: 'decline'; code: CardDeclineCode; retryable: boolean }
  | { kind: 'challenge' }
  | { kind: 'never_answer' };

export const TEST_CARDS: readonly { number: string; behaviour: TestCardBehaviour; what: string }[] = [
  { number: '4242424242424242', behaviour: { kind: 'succeed' }, what: 'succeeds' },
  { number: '4000000000000002', behaviour: { kind: 'decline', code: 'card_declined', retryable: true }, what: 'declined: card_declined (another route may be tried)' },
  { number: '4000000000009995', behaviour: { kind: 'decline', code: 'insufficient_funds', retryable: true }, what: 'declined: insufficient_funds (another route may be tried)' },
  { number: '4000000000000069', behaviour: { kind: 'decline', code: 'expired_card', retryable: true }, what: 'declined: expired_card (another route may be tried)' },
  { number: '4100000000000019', behaviour: { kind: 'decline', code: 'do_not_retry', retryable: false }, what: 'declined: do_not_retry (no other route may be tried)' },
  { number: '4000000000003220', behaviour: { kind: 'challenge' }, what: 'asks for a challenge (Complete succeeds, Fail declines with authentication_failed)' },
  { number: '4000000000000259', behaviour: { kind: 'never_answer' }, what: 'the processor never answers: the attempt times out' },
];

export function digitsOf(number: string): string {
  return number.replace(/[\s-]/g, '');
}

export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The brand a number belongs to: visa 4…, mastercard 51–55 and 2221–2720, amex 34/37, else unknown. */
export function brandOf(digits: string): string {
  if (digits.startsWith('4')) return 'visa';
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  if (two === 34 || two === 37) return 'amex';
  return 'unknown';
}

export function behaviourOf(digits: string): TestCardBehaviour {
  return TEST_CARDS.find((c) => c.number === digits)?.behaviour ?? { kind: 'succeed' };
}
