import { randomInt } from 'node:crypto';
import { Decider, foldWith, unhandled } from '@lib/domain';
import { DomainError } from './domain-error';

/**
 * Referrals (issue 19 B11, decision 0035). Every business has a referral code: a generated one at
 * creation, which it may change until it has a wallet (409 referral_locked). A code is unique
 * across businesses: each is claimed on its own stream (`referral_code-<code>`, decided below),
 * so two businesses asking for one code at once get it once (409 referral_code_taken for the
 * other). A business created with a code records its referrer; the referrer then accrues
 * REFERRAL_SHARE_BPS of the service fee of each of the referred business's live payments that
 * succeeds (ReferralPayoutAccrued, once per payment: libs/businesses referral-payouts.ts).
 */

/** Lower case letters, digits and single inner hyphens, 4–32 characters (case is folded on input). */
export const REFERRAL_CODE_PATTERN = '^[a-z0-9](?:[a-z0-9]|-(?!-)){2,30}[a-z0-9]$';
export const REFERRAL_CODE_RE = new RegExp(REFERRAL_CODE_PATTERN);
export const REFERRAL_CODE_MIN = 4;
export const REFERRAL_CODE_MAX = 32;
/** What a generated code is made of: no 0/o, 1/l/i to misread. */
const GENERATED_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const GENERATED_LENGTH = 8;

/** The referrer's share of the referred business's service fee: 10% (1000 basis points), rounded down. */
export const REFERRAL_SHARE_BPS = 1000;

/** A code as typed, folded to lower case and trimmed; null when it breaks the format. */
export function normalizeReferralCode(input: string): string | null {
  const code = input.trim().toLowerCase();
  return REFERRAL_CODE_RE.test(code) ? code : null;
}

/** A fresh generated code (8 characters of a 31-letter alphabet). */
export function newReferralCode(): string {
  let code = '';
  for (let i = 0; i < GENERATED_LENGTH; i++) code += GENERATED_ALPHABET[randomInt(0, GENERATED_ALPHABET.length)];
  return code;
}

/** The payout a fee earns the referrer: share of `fee` (integer minor units), rounded down. */
export function referralShare(fee: number, shareBps = REFERRAL_SHARE_BPS): number {
  if (!Number.isSafeInteger(fee) || fee <= 0) return 0;
  return Math.floor((fee * shareBps) / 10_000);
}

// --- the claim of one code: stream `referral_code-<code>` ---

export type ReferralCodeEvent =
  | { type: 'ReferralCodeClaimed'; data: { code: string; business_id: string } }
  | { type: 'ReferralCodeReleased'; data: { code: string; business_id: string } };

export type ReferralCodeState = { holder: string | null };

export type ReferralCodeCommand = { type: 'ClaimReferralCode'; code: string; businessId: string } | { type: 'ReleaseReferralCode'; code: string; businessId: string };

export const REFERRAL_CODE_EVENT_TYPES: readonly string[] = ['ReferralCodeClaimed', 'ReferralCodeReleased'];

export const referralCodeDecider: Decider<ReferralCodeCommand, ReferralCodeEvent, ReferralCodeState, void> = {
  initialState: { holder: null },
  decide(command, state) {
    switch (command.type) {
      case 'ClaimReferralCode':
        if (state.holder === command.businessId) return [];
        if (state.holder !== null) throw new DomainError('referral_code_taken', `The referral code ${command.code} is taken: choose another.`, 'referral_code');
        return [{ type: 'ReferralCodeClaimed', data: { code: command.code, business_id: command.businessId } }];
      case 'ReleaseReferralCode':
        if (state.holder !== command.businessId) return [];
        return [{ type: 'ReferralCodeReleased', data: { code: command.code, business_id: command.businessId } }];
      default:
        return unhandled(command, 'referral code command');
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ReferralCodeClaimed':
        return { holder: event.data.business_id };
      case 'ReferralCodeReleased':
        return state.holder === event.data.business_id ? { holder: null } : state;
      default:
        return state;
    }
  },
  fromStored: (stored) => (REFERRAL_CODE_EVENT_TYPES.includes(stored.type) ? (stored as ReferralCodeEvent) : null),
};

/** Who holds a code, from its stream's events. */
export function referralCodeHolder(events: Iterable<{ type: string; data: unknown }>): string | null {
  return foldWith(referralCodeDecider, events).holder;
}

// --- payouts: stream `referral_payout-<pmt_id>`, one event each, ever ---

/**
 * The referrer's share of one payment's service fee. Appended once per payment on a stream of its
 * own, created with no_stream: a second append (another worker, a replay) conflicts and adds
 * nothing. Amounts are integer minor units of the payment's reporting currency.
 */
export interface ReferralPayoutAccruedData {
  payment_id: string;
  referrer_business_id: string;
  referred_business_id: string;
  currency: string;
  /** The service fee the referred business paid on the payment. */
  fee: number;
  share_bps: number;
  /** floor(fee × share_bps / 10 000). */
  amount: number;
}

export type ReferralPayoutEvent = { type: 'ReferralPayoutAccrued'; data: ReferralPayoutAccruedData };
