import type { AssetCode, NetworkId } from '@lib/chains';
import type { EventUnion } from '@lib/eventstore';
import type { FeePayer, Reporting } from '@lib/money';

/**
 * The stored events of a payment stream (`payment-<pmt_id>`): snake_case data, crypto amounts
 * as decimal strings, fiat amounts as integers in minor units. Never rename or remove a field.
 */
/**
 * What a payment carries beyond its money rules: who it belongs to and what the business and the
 * customer see. Recorded on PaymentCreated (optional in the type so the pure decider tests can
 * leave it out; the application always sends it).
 */
export interface PaymentDetails {
  business_id: string;
  /** `live` for a live business, `test` for a simulated one. */
  mode: 'live' | 'test';
  /** The code at the end of the payment's hosted checkout url. */
  code: string;
  description: string | null;
  reference: string | null;
  metadata: Record<string, string>;
  customer_id: string | null;
  customer_email: string | null;
  success_url: string | null;
  cancel_url: string | null;
}

/**
 * Why a transfer is for the business to review: another network, after the checkout ended, or
 * on a superseded quote while the payment already takes another quote's money (0011 addendum: a
 * second payment; the checkout is put in review for it too, as `duplicate_payment`, 0025 addendum
 * of 2026-11-29, multi-quote).
 */
export type PaymentReviewReason = 'wrong_network' | 'late' | 'superseded_quote' | 'paid_after_cancel' | 'paid_after_close';

export type PaymentCreatedData = {
  payment_id: string;
  amount: number;
  currency: string;
  fee_payer: FeePayer;
  fee_rate_bps: number;
  customer_fee: number;
  link_id: string | null;
  expires_at: string | null;
} & Partial<PaymentDetails>;

/**
 * A remainder requested: `amount` (fiat) and `crypto_amount` (the units the remainder checkout
 * asks for). `rate` (decision 0020): the fresh rate the remainder was quoted at, with its source
 * and time; absent on remainders requested before rates were recorded (they reuse the method's
 * rate). At the method's rate the remainder is exactly the units left; at another rate it is the
 * fiat left quoted afresh.
 */
export interface PaymentRemainderRequestedData {
  checkout_id: string;
  amount: number;
  currency: string;
  crypto_amount: string;
  asset: AssetCode;
  network: NetworkId;
  rate?: { amount: number; currency: string; source: string; at: string };
  /** The fresh address reserved for the remainder checkout, its wallet and index (absent on events stored before wallets). */
  address?: string;
  wallet_id?: string;
  address_index?: number;
}

export type PaymentEvent = EventUnion<{
  PaymentCreated: PaymentCreatedData;
  PaymentMetadataUpdated: { metadata: Record<string, string> };
  PaymentMethodSelected: { checkout_id: string; rail: 'crypto'; asset: AssetCode; network: NetworkId; expected_amount: string; rate: { amount: number; currency: string }; quoted_amount: number; quote_ends_at: string; quote_ttl_ms?: number; address?: string; wallet_id?: string; country?: string | null;
    /**
     * A superseded quote made the method again because the first transfer reached it (0011 addendum):
     * the payment's doing, not a choice the customer made — no `method_selected` timeline entry
     * (0025 addendum, 2026-11-29, multi-quote). Absent on every other selection and on events stored before.
     */
    reinstated?: true;
  };
  /** The transfer's block left the chain before it was final (CheckoutTransferWithdrawn): it no longer counts. */
  PaymentTransferWithdrawn: { checkout_id: string; tx_hash: string; network: NetworkId; amount: string };
  PaymentTransferDetected: { checkout_id: string; tx_hash: string; network: NetworkId; amount: string; review: PaymentReviewReason | null; from_address?: string | null;
    /**
     * When the transfer was made, as its checkout records it (its block's time if earlier than
     * when it was seen; absent on events stored before): the quote held for the rest of a short
     * transfer runs from it (decision 0009, addendum 2026-11-30).
     */
    transferred_at?: string;
  };
  /**
   * A transaction paying one of the payment's checkouts seen in the mempool while its quote was
   * live (CheckoutTransferSighted; decision 0023, addendum 2026-11-29): nothing counted, no
   * timeline entry, no webhook; the payment's expiry is held while it waits to be mined.
   */
  PaymentTransferSighted: { checkout_id: string; tx_hash: string; sighted_at: string };
  /** The sighted transaction left the mempool unmined (CheckoutSightingDropped): it holds the payment's expiry no longer. */
  PaymentSightingDropped: { checkout_id: string; tx_hash: string };
  PaymentConfirmationRecorded: { checkout_id: string; tx_hash: string; current: number; required: number };
  /**
   * A transfer detected after the payment succeeded on its own transfers (to a checkout that had
   * completed, on its quoted network, in its coin) reached its confirmations: the payment counts it
   * (0025 addendum, 2026-11-28). `received_amount` and `overpaid_amount`: the payment's totals with
   * it. The fiat figures (amount_received, reporting) stay as PaymentSucceeded set them.
   */
  PaymentTransferCountedAfterSuccess: { checkout_id: string; tx_hash: string; amount: string; received_amount: string; overpaid_amount: string | null };
  PaymentUnderpaid: { expected: string; received: string; remaining: string; amount_received: number; quote_ends_at: string };
  PaymentRemainderRequested: PaymentRemainderRequestedData;
  PaymentRemainderPaid: { checkout_id: string; amount: string };
  PaymentSucceeded: { amount_received: number; received_amount: string; overpaid_amount: string | null; accepted: boolean; reporting: Reporting };
  /** `tx_hash` for a transfer; `attempt_id` for a card charge (decision 0026). */
  PaymentNeedsReview: { checkout_id: string; reason: PaymentReviewReason; tx_hash?: string; attempt_id?: string };
  /** A card checkout opened for the payment (decision 0026): the method is a card; `quoted_amount` is what the card is charged (breakdown total). */
  PaymentCardMethodSelected: { checkout_id: string; rail: 'card'; quoted_amount: number; country: string | null };
  /** A processor charged the card (`amount`, minor units of the payment's currency); `review` when the checkout no longer waited for it. */
  PaymentCardCharged: { checkout_id: string; attempt_id: string; processor: string; brand: string; last4: string; amount: number; review: PaymentReviewReason | null };
  PaymentClaimed: { checkout_id: string; tx_hash: string; network: NetworkId };
  PaymentAccepted: { counted_amount: string };
  PaymentCheckoutEnded: { checkout_id: string; outcome: 'completed' | 'expired' | 'canceled' | 'failed' };
  PaymentExpired: { failure_code: 'payment_expired' };
  PaymentFailed: { reason: 'canceled' | 'expired'; failure_code: string };
  PaymentCanceled: { payment_id: string };
}>;
