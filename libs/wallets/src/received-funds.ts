import type { Sql } from '@lib/database';

/**
 * Whether the business has received any payment or referral payout (spec §3: DELETE /wallet's
 * 24-hour hold applies once it has; "fees and referral payouts count"): one statement over the
 * `payments` read model and `referral_payouts`. Money counts from the moment the service sees it
 * (race audit F2, 2026-11-29): a succeeded, underpaid or in-review payment, any value received,
 * or any transfer recorded on a payment of the business — one still confirming included, since
 * it settles into this wallet; a payment merely open does not. Here, beside the wallet's deletion
 * that decides on it; the businesses capability's HasReceivedFundsQuery answers with it too.
 */
export async function hasReceivedFunds(db: Sql, businessId: string): Promise<boolean> {
  const { rows } = await db.query<{ received: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM payments WHERE business_id = $1 AND (status IN ('succeeded', 'underpaid', 'needs_review') OR COALESCE((state->>'amount_received')::bigint, 0) > 0))
         OR EXISTS (SELECT 1 FROM payments p JOIN payment_transfers t ON t.payment_id = p.id WHERE p.business_id = $1)
         OR EXISTS (SELECT 1 FROM referral_payouts WHERE referrer_business_id = $1 AND amount > 0) AS received`,
    [businessId],
    'businesses_received_funds_seen',
  );
  return rows[0]?.received === true;
}
