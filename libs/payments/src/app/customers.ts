import { createHash } from 'node:crypto';

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
