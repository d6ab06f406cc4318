/**
 * The rate limits of the API spec (docs: /work/shared/spec/payments-api.md, section 8
 * "Rate limits (per IP address, 429 rate_limited with `Retry-After` seconds)").
 *
 * One rule is one budget. Routes the spec limits "together" share one rule, so a request to
 * any of them spends from the same budget. `per` says what the subject of the budget is: the
 * client's IP address (as resolved through TRUSTED_PROXIES), or the business.
 */
export type RateLimitSubjectKind = 'ip' | 'business';

/**
 * Which requests spend a rule's budget:
 * - `every`: every request the rule lets through, whatever its answer (the default);
 * - `successful`: only those answered with a 2xx that is not a replay. The point is still taken
 *   when the request comes in (so concurrent requests on any replica never overspend), and given
 *   back (RateLimiter.refund) when the answer is an error or an idempotent replay: such a request
 *   did nothing the budget limits. A request the rule refuses holds no point either.
 */
export type RateLimitCounting = 'every' | 'successful';

export interface RateLimitRule {
  /** Stable name; also part of the store key, so renaming a rule resets its counters. */
  readonly name: string;
  /** Requests allowed per subject within one window. */
  readonly points: number;
  /** Window length in seconds, counted from the subject's first request in the window. */
  readonly durationSec: number;
  readonly per: RateLimitSubjectKind;
  /** Which requests spend the budget; default 'every'. */
  readonly counts?: RateLimitCounting;
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;

export const RATE_LIMITS: readonly RateLimitRule[] = Object.freeze([
  // | POST /checkouts | 30 per 10 minutes |
  { name: 'checkouts.create', points: 30, durationSec: 10 * MINUTE, per: 'ip' },
  // | POST /accounts | 10 per hour |
  { name: 'accounts.create', points: 10, durationSec: HOUR, per: 'ip' },
  // | POST /accounts/verify and /accounts/verify/resend | 20 per 10 minutes together |
  { name: 'accounts.verify', points: 20, durationSec: 10 * MINUTE, per: 'ip' },
  // | POST /sessions | 30 per 10 minutes |
  { name: 'sessions.create', points: 30, durationSec: 10 * MINUTE, per: 'ip' },
  // | POST /sessions/two-factor | 30 per 10 minutes |
  { name: 'sessions.two_factor', points: 30, durationSec: 10 * MINUTE, per: 'ip' },
  // | POST /passkeys/authentication/options and /verify | 60 per 10 minutes together |
  { name: 'passkeys.authentication', points: 60, durationSec: 10 * MINUTE, per: 'ip' },
  // | POST /me/password, /me/two-factor, /sessions/current/step-up,
  // |   /sessions/current/step-up/options | 20 per 10 minutes together |
  { name: 'me.sensitive', points: 20, durationSec: 10 * MINUTE, per: 'ip' },
  // | POST /me/passkeys/registration/options and POST /me/passkeys | 20 per 10 minutes together |
  { name: 'me.passkeys', points: 20, durationSec: 10 * MINUTE, per: 'ip' },
  // | POST /me/email | 10 per hour |
  { name: 'me.email', points: 10, durationSec: HOUR, per: 'ip' },
  // | POST /password-resets | 5 per hour |
  { name: 'password_resets.create', points: 5, durationSec: HOUR, per: 'ip' },
  // | POST /password-resets/check, /password-resets/confirm, POST /email-changes/undo,
  // |   POST /wallet-changes/cancel | 20 per 10 minutes together |
  { name: 'tokens', points: 20, durationSec: 10 * MINUTE, per: 'ip' },
  // | GET /public/referrals/{code} | 60 per 10 minutes |
  { name: 'referrals.lookup', points: 60, durationSec: 10 * MINUTE, per: 'ip' },
  // | webhook test events and resends | 10 per minute per business |
  // (section 6 and section 7's rate_limited row say the same: 10 per minute per business).
  // The budget is of test events and resends: only those sent count, not a request answered
  // 404 (unknown delivery or endpoint), 400, 409 or with a replay.
  { name: 'webhooks.test_and_resend', points: 10, durationSec: MINUTE, per: 'business', counts: 'successful' },
].map((rule) => Object.freeze(rule as RateLimitRule)));

/**
 * Which rule each route of the spec's table spends from ("METHOD /path", paths written as in
 * the spec, `{code}` for a path parameter). Routes that share a budget map to the same rule.
 *
 * The spec does not name the paths of "webhook test events and resends", so those routes are
 * not listed: POST /webhooks/{id}/test and POST /webhook_deliveries/{id}/resend name
 * 'webhooks.test_and_resend' on themselves (@RateLimit), spent per business.
 */
export const RATE_LIMITED_ROUTES: Readonly<Record<string, string>> = Object.freeze({
  'POST /checkouts': 'checkouts.create',
  'POST /accounts': 'accounts.create',
  'POST /accounts/verify': 'accounts.verify',
  'POST /accounts/verify/resend': 'accounts.verify',
  'POST /sessions': 'sessions.create',
  'POST /sessions/two-factor': 'sessions.two_factor',
  'POST /passkeys/authentication/options': 'passkeys.authentication',
  'POST /passkeys/authentication/verify': 'passkeys.authentication',
  'POST /me/password': 'me.sensitive',
  'POST /me/two-factor': 'me.sensitive',
  'POST /sessions/current/step-up': 'me.sensitive',
  'POST /sessions/current/step-up/options': 'me.sensitive',
  'POST /me/passkeys/registration/options': 'me.passkeys',
  'POST /me/passkeys': 'me.passkeys',
  'POST /me/email': 'me.email',
  'POST /password-resets': 'password_resets.create',
  'POST /password-resets/check': 'tokens',
  'POST /password-resets/confirm': 'tokens',
  'POST /email-changes/undo': 'tokens',
  'POST /wallet-changes/cancel': 'tokens',
  'GET /public/referrals/{code}': 'referrals.lookup',
});
