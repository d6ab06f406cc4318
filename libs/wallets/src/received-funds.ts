import type { Sql } from '@lib/database';

/**
 * Whether the business has received any payment or referral payout (spec §3: DELETE /wallet's
 * 24-hour hold applies once it has; "fees and referral payouts count"): one statement over the
 * `payments` read model (a succeeded or underpaid payment, or any value received) and
 * `referral_payouts`. Here, beside the wallet's deletion that decides on it; the businesses
 * capability's HasReceivedFundsQuery answers with it too.
 */
export async function hasReceivedFunds(db: Sql, businessId: string): Promise<boolean> {
  const { rows } = await db.query<{ received: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM payments WHERE business_id = $1 AND (status IN ('succeeded', 'underpaid') OR COALESCE((state->>'amountReceived')::bigint, 0) > 0))
         OR EXISTS (SELECT 1 FROM referral_payouts WHERE referrer_business_id = $1 AND amount > 0) AS received`,
    [businessId],
    'businesses_received_funds',
  );
  return rows[0]?.received === true;
}
