import { StreamCategory, streamCategory } from '@lib/eventstore';

/**
 * The payments capability's streams, declared once (decision 0014): every name is built and
 * parsed through these, never with a literal prefix. Category names are part of the stored
 * format: never rename one (a reader would stop seeing the streams written under the old name).
 *
 * - `payment-<pmt_id>`: a payment's events (payment.decider.ts);
 * - `checkout-<chk_id>`: a checkout's events (checkout.decider.ts);
 * - `payment_reference-<business id>-<sha256(reference), 40 hex>`: which payment holds a
 *   business's `reference` (§8.9). It was `payment-reference-…` before decision 0014, whose
 *   prefix `payment-` also named payment streams; see `LEGACY_PAYMENT_REFERENCE_PREFIX`.
 */

/** A payment or checkout id as the API and the streams take it: the prefix and 1–64 base62 characters. */
const PAYMENT_ID = 'pmt_[A-Za-z0-9]{1,64}';
const CHECKOUT_ID = 'chk_[A-Za-z0-9]{1,64}';

export const PAYMENT_STREAM: StreamCategory = streamCategory('payment', new RegExp(PAYMENT_ID));
export const CHECKOUT_STREAM: StreamCategory = streamCategory('checkout', new RegExp(CHECKOUT_ID));
export const PAYMENT_REFERENCE_STREAM: StreamCategory = streamCategory('payment_reference', /[A-Za-z0-9_]{1,100}-[0-9a-f]{40}/);

/** Every category this capability writes: the composition root lists them (libs/wiring ALL_STREAM_CATEGORIES). */
export const PAYMENT_STREAM_CATEGORIES: readonly StreamCategory[] = [PAYMENT_STREAM, CHECKOUT_STREAM, PAYMENT_REFERENCE_STREAM];

/**
 * The reference streams' name before decision 0014 (`payment-reference-<business>-<hash>`), read
 * only — a store written before the rename keeps its claims there, so a reference taken then is
 * still found. Nothing writes it any more, and since payment ids are `pmt_…`, no reader takes
 * these streams for payment streams.
 */
export const LEGACY_PAYMENT_REFERENCE_PREFIX = 'payment-reference-';

const anchored = (pattern: string) => new RegExp(`^${pattern}$`);
const PAYMENT_ID_RE = anchored(PAYMENT_ID);
const CHECKOUT_ID_RE = anchored(CHECKOUT_ID);

/** True for a well-formed payment id (anything else is not_found before any stream is named). */
export const isPaymentId = (id: string): boolean => PAYMENT_ID_RE.test(id);
/** True for a well-formed checkout id. */
export const isCheckoutId = (id: string): boolean => CHECKOUT_ID_RE.test(id);
