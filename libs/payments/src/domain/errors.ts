import { DomainRefusal } from '@lib/domain';

/** The codes a payment or checkout rule refuses with: API error codes (spec §7). */
export type PaymentErrorCode =
  | 'invalid_request'
  | 'invalid_tx_hash'
  | 'invalid_email'
  | 'email_required'
  | 'asset_unavailable'
  | 'not_found'
  | 'payment_not_cancelable'
  | 'payment_in_flight'
  | 'payment_not_acceptable'
  | 'payment_not_underpaid'
  | 'remainder_unavailable'
  | 'nothing_due'
  | 'not_accepting'
  | 'payment_paid'
  | 'payment_canceled'
  | 'wrong_rail'
  | 'checkout_canceled'
  | 'checkout_failed'
  | 'checkout_not_cancelable'
  | 'checkout_not_supersedable'
  | 'checkout_not_claimable'
  | 'already_claimed'
  | 'payment_expired'
  | 'checkout_expired'
  | 'reference_in_use'
  | 'link_not_found'
  | 'payment_not_found'
  | 'business_suspended'
  | 'rail_unavailable'
  | 'test_mode_unavailable'
  | 'temporarily_unavailable'
  | 'upstream_unavailable'
  | 'amount_out_of_range'
  | 'checkout_not_retryable'
  | 'route_in_progress'
  | 'no_route'
  | 'stale_route'
  | 'checkout_not_awaiting';

/** A command refused by a payment or checkout rule. Pure; the API's error filter renders it as is. */
export class PaymentDomainError extends DomainRefusal<PaymentErrorCode> {
  override name = 'PaymentDomainError';

  constructor(
    code: PaymentErrorCode,
    message: string,
    field: string | null = null,
    /** remainder_unavailable: the time (ISO) the live quote ends, when a quote is still live. */
    readonly quoteEndsAt: string | null = null,
  ) {
    super(code, message, field, quoteEndsAt ? { quote_ends_at: quoteEndsAt } : {});
  }
}
