import { createHash } from 'node:crypto';
import { customerIdFor } from '@lib/payments';

/**
 * Who an e-mail address names (decision 0029). An address is compared in lower case, trimmed.
 *
 * Before anyone claimed it, an address names its *derived* customer: `customerIdFor(business,
 * email)`, the id payments have always recorded (so every payment made before customers existed
 * names the customer its e-mail does now). Once a customer leaves the address (PATCH to another
 * e-mail), the address's claim stream counts a release, and the next customer the address names
 * is derived from the address and that count: a new id, never the one that left.
 */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** The id of the address's claim stream (`customer_email-<this>`). */
export function emailFingerprint(businessId: string, email: string): string {
  return createHash('sha256').update(`${businessId}|${emailKey(email)}`).digest('hex');
}

/** The customer an address names while no customer claims it, after `generation` releases. */
export function derivedCustomerId(businessId: string, email: string, generation: number): string {
  if (generation === 0) return customerIdFor(businessId, email);
  return 'cst_' + createHash('sha256').update(`${businessId}|${emailKey(email)}|${generation}`).digest('base64url').replace(/[-_]/g, '').slice(0, 24);
}
