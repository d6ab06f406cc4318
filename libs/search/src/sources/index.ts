import type { SearchSource } from '../search.projector';
import { customerSearchSource } from './customer.source';
import { paymentSearchSource } from './payment.source';

export * from './customer.source';
export * from './payment.source';

/**
 * The sources of the index, in the order each event goes through them: customers before payments
 * (a payment takes the name and e-mail of the customer its PaymentCreated makes). Links add
 * theirs here (decision 0031).
 */
export const SEARCH_SOURCES: readonly SearchSource[] = [customerSearchSource, paymentSearchSource];
