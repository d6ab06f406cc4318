import { StreamCategory, streamCategory } from '@lib/eventstore';

/**
 * The customers capability's streams (decision 0014's rule: names only through these; decision 0029):
 * - `customer-<cst_id>`: one customer's own events (created, updated, blocked, unblocked);
 * - `customer_email-<sha256(business id | e-mail in lower case), 64 hex>`: which customer an
 *   e-mail address of a business names (claims and releases), so two customers of one business
 *   never share an address, whatever order their writes come in.
 * `customer-` is not a prefix of `customer_email-` (the `-` ends a category's prefix).
 */
export const CUSTOMER_ID_PATTERN = /cst_[A-Za-z0-9]{1,64}/;
export const CUSTOMER_STREAM: StreamCategory = streamCategory('customer', CUSTOMER_ID_PATTERN);
export const CUSTOMER_EMAIL_STREAM: StreamCategory = streamCategory('customer_email', /[0-9a-f]{64}/);

export const CUSTOMER_STREAM_CATEGORIES: readonly StreamCategory[] = [CUSTOMER_STREAM, CUSTOMER_EMAIL_STREAM];

const CUSTOMER_ID = new RegExp(`^${CUSTOMER_ID_PATTERN.source}$`);
/** True for a well-formed customer id (anything else is not_found before a stream is named). */
export const isCustomerId = (id: string): boolean => CUSTOMER_ID.test(id);
