/**
 * The codes a payment or checkout rule refuses with. Each is an API error code (spec §7), so the
 * HTTP layer maps a PaymentDomainError one to one; `status` is that code's HTTP status.
 */
export const PAYMENT_ERROR_STATUS = {
  invalid_request: 400,
  invalid_tx_hash: 400,
  invalid_email: 400,
  asset_unavailable: 400,
  not_found: 404,
  payment_not_cancelable: 409,
  payment_in_flight: 409,
  payment_not_acceptable: 409,
  payment_not_underpaid: 409,
  remainder_unavailable: 409,
  nothing_due: 409,
  payment_paid: 409,
  payment_canceled: 409,
  wrong_rail: 409,
  checkout_canceled: 409,
  checkout_failed: 409,
  checkout_not_cancelable: 409,
  checkout_not_supersedable: 409,
  checkout_not_claimable: 409,
  already_claimed: 409,
  payment_expired: 410,
  checkout_expired: 410,
} as const;

export type PaymentErrorCode = keyof typeof PAYMENT_ERROR_STATUS;

/** A command refused by a payment or checkout rule. Pure: no HTTP or NestJS types. */
export class PaymentDomainError extends Error {
  override readonly name = 'PaymentDomainError';
  readonly status: number;

  constructor(
    readonly code: PaymentErrorCode,
    message: string,
    /** The input at fault, when there is one. */
    readonly field: string | null = null,
    /** remainder_unavailable: the time (ISO) the live quote ends, when a quote is still live. */
    readonly quoteEndsAt: string | null = null,
  ) {
    super(message);
    this.status = PAYMENT_ERROR_STATUS[code];
  }
}
