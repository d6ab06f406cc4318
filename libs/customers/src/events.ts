import { eventOf, type EventUnion } from '@lib/eventstore';
import { CUSTOMER_EMAIL_STREAM, CUSTOMER_STREAM } from './stream-categories';

/**
 * The stored events of the customers capability (decision 0029). Type names and snake_case data
 * are the stored format: add optional fields, never rename or remove.
 */

/**
 * A customer recorded on its stream. `origin`: `api` (POST /customers) or `payment` (a customer
 * first known from a payment's `customer_email`, written to its stream the first time the
 * business changes it; `created_at` then is the first payment's time).
 */
export interface CustomerCreatedData {
  customer_id: string;
  business_id: string;
  mode: 'live' | 'test';
  email: string;
  name: string | null;
  note: string;
  origin: 'api' | 'payment';
  created_at?: string;
}

/** The customer's fields after a change (all of them, changed or not): those of its creation a business can change. */
export type CustomerUpdatedData = Pick<CustomerCreatedData, 'email' | 'name' | 'note'>;

export type CustomerEvent = EventUnion<{
  CustomerCreated: CustomerCreatedData;
  CustomerUpdated: CustomerUpdatedData;
  CustomerBlocked: { customer_id: string };
  CustomerUnblocked: { customer_id: string };
}>;

/** An address taken by a customer, or left by one (the stream is named by the address). */
export interface CustomerEmailData {
  business_id: string;
  email: string;
  customer_id: string;
}

export type CustomerEmailEvent = EventUnion<{ CustomerEmailClaimed: CustomerEmailData; CustomerEmailReleased: CustomerEmailData }>;

export const CUSTOMER_EVENT_TYPES = ['CustomerCreated', 'CustomerUpdated', 'CustomerBlocked', 'CustomerUnblocked'] as const;
const EMAIL_EVENT_TYPES = ['CustomerEmailClaimed', 'CustomerEmailReleased'];

/** A recorded event as a customer event, or null (another stream's, or a type this version does not know). */
export function asCustomerEvent(event: { stream?: string; type: string; data: unknown }): CustomerEvent | null {
  return eventOf<CustomerEvent>(CUSTOMER_STREAM, CUSTOMER_EVENT_TYPES, event);
}

export function asCustomerEmailEvent(event: { stream?: string; type: string; data: unknown }): CustomerEmailEvent | null {
  return eventOf<CustomerEmailEvent>(CUSTOMER_EMAIL_STREAM, EMAIL_EVENT_TYPES, event);
}
