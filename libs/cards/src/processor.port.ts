/**
 * The card processor port (decision 0026): what the payments capability asks of a card
 * processor, and how a processor's results reach it without the customer's browser. libs/payments
 * depends on this port, never on a processor; the processors here are simulated (no real adapter
 * is built — the contract a real one would meet is in the decision record: Stripe PaymentIntents
 * with hosted 3-D Secure, Adyen's hosted payment pages).
 */

/** One card attempt the service asks a processor to take: the processor answers with its own secure page. */
export interface CardAttemptRequest {
  /** The service's attempt id (`att_…`), echoed back with every result. */
  attemptId: string;
  checkoutId: string;
  businessId: string;
  /** What the card is charged: the checkout breakdown's total, minor units of `currency`. */
  amountMinor: number;
  currency: string;
  email: string | null;
  /** Where the processor sends the customer's browser back when the page is done. */
  returnUrl: string;
  /** When the service stops waiting for this attempt (the attempt times out). */
  expiresAt: string;
  /**
   * Where this service is reached (API_BASE_URL, else the address the request came in through):
   * the simulated processors serve their secure pages from it. A real processor ignores it.
   */
  serviceOrigin: string;
}

/** What the processor created: its reference of the attempt and the secure page the customer pays on. */
export interface CardAttemptCreated {
  ref: string;
  secureUrl: string;
}

/** Declines the processors report (stable codes, the checkout's failure_code). */
export type CardDeclineCode = 'card_declined' | 'insufficient_funds' | 'expired_card' | 'do_not_retry' | 'authentication_failed';

/** A decline that forbids another try (another route would refuse the same card): checkout_not_retryable afterwards. */
export const NOT_RETRYABLE_DECLINES: readonly CardDeclineCode[] = ['do_not_retry'];

/** The result of an attempt as the processor knows it. */
export type CardAttemptResult =
  | { status: 'pending' }
  | { status: 'succeeded'; brand: string; last4: string; amountMinor: number; currency: string }
  | { status: 'declined'; declineCode: CardDeclineCode; retryable: boolean; brand: string | null; last4: string | null };

/** One result a processor reports on its own (a webhook for a real processor). */
export interface CardResultReport {
  processor: string;
  ref: string;
  attemptId: string;
  checkoutId: string;
  result: Exclude<CardAttemptResult, { status: 'pending' }>;
}

/** Where processors report results: the payments capability records them (CardAttemptResults). */
export interface CardResultsSink {
  report(report: CardResultReport): Promise<void>;
}

/** A processor that cannot be reached: nothing was created; the caller answers 503 upstream_unavailable. */
export class CardProcessorUnavailable extends Error {
  override name = 'CardProcessorUnavailable';
  constructor(readonly processor: string, message = `The card processor ${processor} cannot be reached.`) {
    super(message);
  }
}

/** A card processor (one route of a checkout). */
export interface CardProcessor {
  /** Stable name, recorded on checkouts (`card.processor`). */
  readonly name: string;
  /** Whether the processor takes cards of customers in `country` (ISO 3166-1 alpha-2). */
  serves(country: string): boolean;
  /** Creates the attempt and its secure page; throws CardProcessorUnavailable when unreachable. */
  createAttempt(request: CardAttemptRequest): Promise<CardAttemptCreated>;
  /** The attempt's result now; throws CardProcessorUnavailable when unreachable. */
  attemptResult(ref: string): Promise<CardAttemptResult>;
}
