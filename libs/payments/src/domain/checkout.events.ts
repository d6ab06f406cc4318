import type { AssetCode, NetworkId } from '@lib/chains';
import type { EventUnion } from '@lib/eventstore';
import type { Breakdown } from '@lib/money';

/**
 * The stored events of a checkout stream (`checkout-<chk_id>`). Type names and snake_case data
 * are the stored format: add optional fields, never rename or remove. Crypto amounts are decimal
 * strings in the coin, fiat amounts integers in minor units. Times of the facts are the log's
 * recordedAt, except the times a rule decides on (expires_at).
 */
export type CheckoutReviewReason = 'claimed' | 'wrong_network' | 'late' | 'duplicate_payment' | CardReviewReason;

/**
 * Why the checkout's own transfer is reviewed: another network, after its quote ended, or a second
 * payment — the transfer reached this quote while the payment already takes another quote's money
 * (`duplicate_payment`, 0025 addendum of 2026-11-29, multi-quote; the payment records it as
 * `superseded_quote`).
 */
export type CheckoutTransferReviewReason = 'wrong_network' | 'late' | 'duplicate_payment';

/**
 * Why a card payment is for the business to review (decision 0026): the processor charged the
 * card on an attempt whose checkout the customer had canceled (`paid_after_cancel`), or that had
 * ended otherwise — failed by its payment, timed out, or completed by another attempt
 * (`paid_after_close`).
 */
export type CardReviewReason = 'paid_after_cancel' | 'paid_after_close';

/**
 * How a checkout's review ended when its payment succeeded while the checkout was in review (0025
 * addendum, 2026-11-29): the business accepted the payment (`payment_accepted`), or the payment
 * was paid in full another way — a remainder, another quote — with no one's review needed
 * (`payment_succeeded`).
 */
export type CheckoutReviewResolution = 'payment_accepted' | 'payment_succeeded';

/** A card attempt's status (decision 0026). */
export type CardAttemptStatus = 'pending' | 'succeeded' | 'declined' | 'timed_out';

/** The checkout statuses (spec §2). */
export type CheckoutStatusName = 'open' | 'awaiting_customer' | 'confirming' | 'completed' | 'needs_review' | 'expired' | 'canceled' | 'failed';

export interface CheckoutOpenedData {
  checkout_id: string;
  payment_id: string;
  link_id: string | null;
  rail: 'crypto';
  remainder: boolean;
  simulated: boolean;
  asset: AssetCode;
  network: NetworkId;
  /** The quoted amount (what is due on this checkout), decimal string. */
  amount: string;
  address: string;
  /** The business's wallet the address was reserved in, and its derivation index (absent on checkouts opened before wallets existed). */
  wallet_id?: string;
  address_index?: number;
  /**
   * The locked rate: minor units of `currency` per coin; `source` and `at` (decision 0020) name
   * the price it came from (`fixed`, `coinbase-exchange:BTC-USD`, …) and its time — absent on
   * checkouts opened before they were recorded.
   */
  rate: { amount: number; currency: string; source?: string; at?: string };
  breakdown: Breakdown;
  /** End of the quote. */
  expires_at: string;
  /** The quote's life when it was opened (QUOTE_TTL_SECONDS); absent on older events (15 minutes). */
  quote_ttl_ms?: number;
  confirmations_required: number;
  /** Who and what the checkout is for (optional in the type for the pure tests; the application sends them). */
  business_id?: string;
  email?: string | null;
  country?: string | null;
  success_url?: string | null;
  /** The checkout this one replaced (POST /checkouts `replaces`), or null. */
  replaces?: string | null;
  simulate?: 'exact' | 'underpaid' | 'overpaid' | 'wrong_network' | null;
}

/**
 * A card checkout opened (decision 0026): no quote, no address; the price the card is charged
 * (`breakdown.total`) and the routes (processor names, in order) its attempts may use.
 */
export interface CardCheckoutOpenedData {
  checkout_id: string;
  payment_id: string;
  link_id: string | null;
  rail: 'card';
  remainder: false;
  simulated: boolean;
  breakdown: Breakdown;
  routes: string[];
  /** How long an attempt waits for the processor before it times out. */
  attempt_ttl_ms: number;
  business_id?: string;
  email?: string | null;
  country?: string | null;
  success_url?: string | null;
  replaces?: string | null;
}

/** An attempt started on the checkout's next route: the processor's reference and secure page. */
export interface CardAttemptStartedData {
  checkout_id: string;
  payment_id: string;
  attempt_id: string;
  /** 1-based, among this checkout's attempts. */
  number: number;
  /** 1-based position of the route in the checkout's routes. */
  route: number;
  processor: string;
  ref: string;
  secure_url: string;
  expires_at: string;
}

export interface CheckoutTransferDetectedData {
  checkout_id: string;
  payment_id: string;
  tx_hash: string;
  network: NetworkId;
  amount: string;
  /** Totals on this checkout after the transfer. */
  received_amount: string;
  remaining_amount: string | null;
  overpaid_amount: string | null;
  simulated: boolean;
  from_address?: string | null;
  /**
   * A transfer on another network than the quote's: the confirmations that make it final there
   * (its own network's; decision 0025 addendum, 2026-11-29, own network). Absent on the quoted
   * network, and on events stored before: the checkout's `confirmations_required`.
   */
  confirmations_required?: number;
  /**
   * When the block carrying it was made, as the chain states it (a chain watcher's report; absent
   * on simulated transfers and on events stored before): whether it came in time is judged by
   * it (decision 0025, addendum of 2026-11-29, lateness at mining).
   */
  mined_at?: string;
  /**
   * When the service saw the transfer (the checkout's `sent_at`; absent on events stored before):
   * with `mined_at`, the transfer's time, which the quote held for the rest of a short transfer
   * runs from (decision 0009, addendum 2026-11-30).
   */
  detected_at?: string;
}

export type CheckoutEvent = EventUnion<{
  CheckoutOpened: CheckoutOpenedData;
  CheckoutCanceled: { checkout_id: string; payment_id: string; link_id: string | null; remainder: boolean; canceled_by: 'customer' };
  CheckoutSuperseded: { checkout_id: string };
  CheckoutClaimed: { checkout_id: string; payment_id: string; tx_hash: string; network: NetworkId; email: string | null };
  CheckoutTransferDetected: CheckoutTransferDetectedData;
  /**
   * A chain reorganisation took the transfer's block away before it was final (issue 11): the
   * amounts as they are without it. `status` `completed` only for a transfer that came after the
   * checkout completed (0025 addendum, 2026-11-28): the checkout stays completed.
   */
  CheckoutTransferWithdrawn: { checkout_id: string; payment_id: string; tx_hash: string; network: NetworkId; amount: string; received_amount: string; remaining_amount: string | null; overpaid_amount: string | null; /** The checkout's status without it. */ status: CheckoutStatusName };
  /**
   * A transaction paying the checkout's address seen unconfirmed (in a node's mempool) while the
   * quote was live (decision 0023, addendum 2026-11-29): nothing is counted — the transfer counts
   * when it is mined (CheckoutTransferDetected) — but the quote is held while it waits: the quote
   * timer does not end the checkout, and the transfer, mined after the quote's end, is on time.
   * `sighted_at`: when it was seen (the hold lasts at most SIGHTING_HOLD_MS from then).
   */
  CheckoutTransferSighted: { checkout_id: string; payment_id: string; tx_hash: string; network: NetworkId; amount: string; sighted_at: string };
  /** A sighted transaction left the mempool unmined (dropped, replaced): it holds the quote no longer. */
  CheckoutSightingDropped: { checkout_id: string; payment_id: string; tx_hash: string };
  CheckoutConfirmationRecorded: { checkout_id: string; tx_hash: string; current: number; required: number };
  CheckoutCompleted: { checkout_id: string; payment_id: string; received_amount: string; overpaid_amount: string | null };
  CheckoutAwaitingCustomer: { checkout_id: string; received_amount: string; remaining_amount: string; expires_at: string };
  CheckoutNeedsReview: { checkout_id: string; payment_id: string; review_reason: CheckoutTransferReviewReason; tx_hash: string };
  /**
   * The payment as a whole holds its price through its quotes together (a second quote paid; 0025
   * addendum, 2026-11-29, multi-quote): nothing more is due on this checkout — no remaining amount
   * nor payment URI, and a short transfer here is not awaited: the checkout completes with what it
   * has (a CheckoutCompleted follows at once when it awaited the customer, or when its transfers
   * are final). The status otherwise stays.
   */
  CheckoutPaymentCovered: { checkout_id: string; payment_id: string };
  /** `expires_at`: the new end of the quote when it ended before its time (mark-sent `late` ends it first); absent when it ended at its own time. */
  CheckoutExpired: { checkout_id: string; payment_id: string; received_amount: string; expires_at?: string };
  CheckoutFailed: { checkout_id: string; payment_id: string; failure_code: string };
  /**
   * The checkout left `needs_review` because its payment succeeded (0025 addendum, 2026-11-29):
   * `status` `completed` when what the checkout reviewed was counted (the business accepted the
   * payment with this checkout's money or claim in it), `failed` with `failure_code`
   * `payment_succeeded` otherwise (the payment was paid without it). The review reason stays, as
   * the history of why it was reviewed.
   */
  CheckoutReviewResolved: { checkout_id: string; payment_id: string; resolution: CheckoutReviewResolution; status: 'completed' | 'failed'; failure_code: string | null };
  CardCheckoutOpened: CardCheckoutOpenedData;
  CheckoutCardAttemptStarted: CardAttemptStartedData;
  /** The processor charged the card. `status`: the checkout's status after it (completed, or needs_review with `review_reason`; unchanged when it had completed or was under review already). */
  CheckoutCardAttemptSucceeded: { checkout_id: string; payment_id: string; attempt_id: string; processor: string; brand: string; last4: string; amount: number; currency: string; status: CheckoutStatusName; review_reason: CardReviewReason | null };
  /**
   * A card charge the checkout completed on, which its payment put under review because it could not
   * take it — a crypto transfer was already on its way to another quote, or the payment was no
   * longer pending (decision 0026 addendum, 2026-11-29): the checkout is `needs_review` for the same
   * reason the payment's `card_charged` entry gives, never a second `completed` beside the quote paid.
   */
  CheckoutCardChargeHeld: { checkout_id: string; payment_id: string; attempt_id: string; review_reason: CardReviewReason };
  /** The processor declined the card. `failed`: the checkout failed with the decline code (it was waiting for this attempt). */
  CheckoutCardAttemptDeclined: { checkout_id: string; payment_id: string; attempt_id: string; decline_code: string; retryable: boolean; brand: string | null; last4: string | null; failed: boolean };
  /** The processor never answered before the attempt's end. `failed`: the checkout failed with processor_timeout. */
  CheckoutCardAttemptTimedOut: { checkout_id: string; payment_id: string; attempt_id: string; failed: boolean };
}>;
