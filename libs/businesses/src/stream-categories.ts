import { StreamCategory, streamCategory } from '@lib/eventstore';

/**
 * The businesses capability's streams, declared once: every name is built and parsed through
 * these, never with a literal prefix. A category's name is part of the stored format: never
 * rename it.
 *
 * - `business-<biz_id>`: a business and its API keys (business.decider.ts).
 * - `referral_code-<code>`, `referral_payout-<pmt_id>`: referral code claims and payouts (referrals.ts).
 */

/** A business id: `biz_` and 1–64 base62 characters. */
const BUSINESS_ID = 'biz_[0-9A-Za-z]{1,64}';

export const BUSINESS_STREAM: StreamCategory = streamCategory('business', new RegExp(BUSINESS_ID));

/** A referral code's claim (`referral_code-<code>`): who holds it (referrals.ts). */
export const REFERRAL_CODE_STREAM: StreamCategory = streamCategory('referral_code', /[a-z0-9-]{4,32}/);
/** The referral payout of one payment (`referral_payout-<pmt_id>`): at most one event. */
export const REFERRAL_PAYOUT_STREAM: StreamCategory = streamCategory('referral_payout', /pmt_[0-9A-Za-z]{1,64}/);

/** Every category this capability writes: the composition root lists them (libs/wiring ALL_STREAM_CATEGORIES). */
export const BUSINESS_STREAM_CATEGORIES: readonly StreamCategory[] = [BUSINESS_STREAM, REFERRAL_CODE_STREAM, REFERRAL_PAYOUT_STREAM];

const BUSINESS_ID_RE = new RegExp(`^${BUSINESS_ID}$`);
const KEY_ID_RE = /^key_[0-9A-Za-z]{1,64}$/;

/** True for a well-formed business id (anything else is not_found before any stream is named). */
export const isBusinessId = (id: string): boolean => BUSINESS_ID_RE.test(id);
/** True for a well-formed API key id. */
export const isKeyId = (id: string): boolean => KEY_ID_RE.test(id);
