import { createHash } from 'node:crypto';
import type { WriteMeta } from '@lib/eventstore';

/**
 * Customers (spec §2 `cst_`): a payment's `customer_email` names one customer per business and
 * e-mail address (case-insensitive). The id is derived from both, so concurrent payments for the
 * same e-mail agree on it without a lookup or a lock (decision 0011).
 */
export function customerIdFor(businessId: string, email: string): string {
  return 'cst_' + createHash('sha256').update(`${businessId}|${email.trim().toLowerCase()}`).digest('base64url').replace(/[-_]/g, '').slice(0, 24);
}

// One dot-separated domain of at least two labels, a local part without spaces, quotes or
// brackets: what a checkout page can send mail to. At most 254 characters (RFC 5321).
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isValidEmail(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 254) return false;
  if (!EMAIL.test(value)) return false;
  const [local, domain] = value.split('@');
  return local.length <= 64 && !local.startsWith('.') && !local.endsWith('.') && !local.includes('..') && !/^\d+$/.test(domain.split('.').pop()!);
}

/**
 * What payments ask of the customers capability (decision 0029), which implements it
 * (libs/customers `CustomerDirectory`, provided under CUSTOMER_GATE): payments never import it.
 */
export interface CustomerGate {
  /**
   * The customer a payment's e-mail names (its id goes on PaymentCreated as `customer_id`);
   * refuses with 403 customer_blocked (`field`) when that customer is blocked.
   */
  customerFor(businessId: string, email: string, field: string): Promise<string>;
  /** 403 customer_blocked (`field`) when one of the e-mails (null and undefined skipped) names a blocked customer of the business. */
  assertNotBlocked(businessId: string, emails: readonly (string | null | undefined)[], field: string): Promise<void>;
}

export const CUSTOMER_GATE = Symbol('CUSTOMER_GATE');

/**
 * The request's metadata with the customer as its actor's id: a public request (the API's
 * `{ kind: 'customer', id: null }` actor: a checkout page) on a payment whose customer is known
 * (its `customer_id`, or the one a link checkout's e-mail names) writes its events as that
 * customer (spec §6; decision 0029 addendum 2026-11-29). Any other actor, or no customer, as given.
 */
export function actingAsCustomer(meta: WriteMeta, customerId: string | null | undefined): WriteMeta {
  if (!isAnonymousCustomer(meta) || typeof customerId !== 'string') return meta;
  return { ...meta, actor: { ...meta.actor, id: customerId } };
}

/** A checkout page's request: the customer actor, not yet named (actingAsCustomer fills it in). */
export function isAnonymousCustomer(meta: WriteMeta): meta is WriteMeta & { actor: { kind: 'customer'; id: null } } {
  return meta.actor?.kind === 'customer' && meta.actor.id === null;
}
