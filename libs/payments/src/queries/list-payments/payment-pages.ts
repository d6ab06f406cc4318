import type { ScopedReadCache } from '@lib/projections';

/**
 * The pages of GET /payments this process keeps (a ScopedReadCache over the `payments`
 * projection, by business and query string): PaymentsCoreModule provides it from READ_CACHE_MB
 * and READ_CACHE_MAX_AGE_SECONDS. Decision 0019, addendum.
 */
export const PAYMENT_PAGES = Symbol('PAYMENT_PAGES');
export type PaymentPages = Pick<ScopedReadCache, 'get'>;
