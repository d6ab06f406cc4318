import type { SearchSource } from '../search.projector';
import { customerSearchSource } from './customer.source';
import { linkSearchSource } from './link.source';
import { paymentSearchSource } from './payment.source';

export * from './customer.source';
export * from './link.source';
export * from './payment.source';

/**
 * The sources of the index, in the order each event goes through them: customers before payments
 * (a payment takes the name and e-mail of the customer its PaymentCreated makes); links have
 * their own stream and documents.
 */
export const SEARCH_SOURCES: readonly SearchSource[] = [customerSearchSource, paymentSearchSource, linkSearchSource];
