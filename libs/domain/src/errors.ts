/**
 * Refusals shared by the domain and the API. Pure: no HTTP or NestJS types, so deciders can
 * throw them and the API's error filter turns them into the §7 envelope without a per-library
 * mapping.
 */

/**
 * Every error code the API answers with (spec §7). Codes are stable: clients branch on them.
 * Adding one is fine; renaming or removing one is a breaking change.
 */
export const ERROR_STATUS = {
  // requests and keys
  invalid_request: 400,
  invalid_json: 400,
  idempotency_key_required: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  unauthenticated: 401,
  invalid_api_key: 401,
  business_forbidden: 403,
  permission_denied: 403,
  test_mode_unavailable: 403,
  session_required: 403,
  cross_site_request: 403,
  edge_forbidden: 403,
  not_found: 404,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  rate_limited: 429,
  internal_error: 500,
  temporarily_unavailable: 503,
  upstream_unavailable: 503,
  // payments
  invalid_email: 400,
  reference_in_use: 409,
  not_accepting: 409,
  business_suspended: 403,
  payment_not_cancelable: 409,
  payment_in_flight: 409,
  payment_not_acceptable: 409,
  payment_not_underpaid: 409,
  remainder_unavailable: 409,
  nothing_due: 409,
  // checkouts and receipts
  email_required: 400,
  rail_unavailable: 400,
  asset_unavailable: 400,
  amount_out_of_range: 400,
  invalid_tx_hash: 400,
  customer_blocked: 403,
  link_not_found: 404,
  payment_not_found: 404,
  payment_paid: 409,
  payment_canceled: 409,
  wrong_rail: 409,
  checkout_canceled: 409,
  checkout_failed: 409,
  checkout_not_cancelable: 409,
  checkout_not_supersedable: 409,
  checkout_not_claimable: 409,
  already_claimed: 409,
  checkout_not_retryable: 409,
  route_in_progress: 409,
  no_route: 409,
  stale_route: 409,
  checkout_not_awaiting: 409,
  payment_expired: 410,
  checkout_expired: 410,
  link_archived: 410,
  // links and customers
  link_has_payments: 409,
  link_disabled: 409,
  customer_exists: 409,
  // wallets
  wallet_exists: 409,
  wallet_required: 409,
  external_wallet: 409,
  invalid_address: 400,
  wallet_change_pending: 409,
  wallet_change_applied: 409,
  // wallet sends (decision 0040)
  insufficient_funds: 409,
  insufficient_fee_funds: 409,
  duplicate_transaction: 409,
  transaction_rejected: 409,
  network_unavailable: 503,
  // webhooks (the spec leaves the endpoint limit open: docs/decisions/0013-webhooks.md)
  webhook_limit: 409,
  // dashboard and account (decision 0034: accounts, sign-up, sessions)
  business_required: 400,
  invalid_credentials: 400,
  challenge_failed: 400,
  weak_password: 400,
  password_required: 400,
  invalid_code: 400,
  code_expired: 400,
  // §7 allows 400 or 409; §4's alert-email confirm names 409, so one status serves both (decisions 0034, 0035)
  verification_expired: 409,
  password_reset_required: 403,
  // password resets and e-mail changes (decision 0038)
  invalid_token: 400,
  reset_on_hold: 409,
  email_taken: 409,
  current_session: 409,
  too_many_attempts: 429,
  too_many_emails: 429,
  email_unavailable: 503,
  step_up_required: 403,
  // passkeys and step-up (decision 0037)
  passkey_failed: 400,
  passkey_unknown: 400,
  passkey_exists: 409,
  passkey_limit: 409,
  last_sign_in_method: 409,
  no_passkeys: 409,
  signup_browser_required: 400,
  api_key_revoked: 409,
  publishable_key: 409,
  // business settings, alert e-mail and referrals (decision 0035)
  referral_locked: 409,
  referral_code_taken: 409,
  // two-step sign-in (decision 0036)
  challenge_expired: 400,
  two_factor_setup_required: 409,
  two_factor_enabled: 409,
  two_factor_disabled: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * How a session answers 403 step_up_required (spec §5.6; decision 0037): the end of each such
 * refusal's message, whether the API's step-up guard or a use case refuses.
 */
export const STEP_UP_HOW = 'POST /sessions/current/step-up with your password or a passkey (valid 15 minutes)';

/**
 * Any refusal: a stable code callers branch on, a message, and the input at fault when there is
 * one. DomainRefusal's codes are API error codes; the pure libraries (money, chains) refuse with
 * codes of their own (MoneyError, RegistryError) that their callers map.
 */
export class Refusal<C extends string = string> extends Error {
  constructor(
    readonly code: C,
    message: string,
    /** The input at fault (`amount`, `network`, `tx_hash`, ...), when there is one. */
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

/**
 * A command refused by a rule. Its code is an API error code (spec §7), so the HTTP layer maps
 * it one to one; `status` is that code's HTTP status; `details` become extra members of the
 * error object (for example the time a quote ends).
 */
export class DomainRefusal<C extends ErrorCode = ErrorCode> extends Refusal<C> {
  override name = 'DomainRefusal';
  readonly status: number;

  constructor(
    code: C,
    message: string,
    field: string | null = null,
    readonly details: Record<string, unknown> = {},
  ) {
    super(code, message, field);
    this.status = ERROR_STATUS[code];
  }
}

/** `value`, or 404 not_found with `message` where there is none (a read model's get by id). */
export function foundOr404<T>(value: T | null, message: string): T {
  if (value === null) throw new DomainRefusal('not_found', message);
  return value;
}

/** The article a refusal's message puts before a status or word: "An expired checkout", "A canceled payment". */
export function article(word: string): 'A' | 'An' {
  return /^[aeiou]/i.test(word) ? 'An' : 'A';
}
