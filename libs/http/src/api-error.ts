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
  // dashboard and account (the routes come later; the codes are part of the contract now)
  business_required: 400,
  step_up_required: 403,
  api_key_revoked: 409,
  publishable_key: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The one error type of the API: a status, a stable code, a message for people and the
 * input at fault. The error filter turns it into `{error: {code, message, field, request_id}}`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field: string | null = null,
    /** Extra response headers (Retry-After, WWW-Authenticate). */
    readonly headers: Record<string, string> = {},
    /** Extra members of the error object (for example the time a quote ends). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export function invalidRequest(field: string, message: string): ApiError {
  return new ApiError('invalid_request', message, field);
}

export function notFound(what = 'nothing with that id for this business'): ApiError {
  return new ApiError('not_found', what.charAt(0).toUpperCase() + what.slice(1) + '.');
}
