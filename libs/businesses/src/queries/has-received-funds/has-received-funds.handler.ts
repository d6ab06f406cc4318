import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { HasReceivedFundsQuery } from './has-received-funds.query';

/** One statement over the `payments` read model (a succeeded or underpaid payment, or any value received) and `referral_payouts`. */
export async function hasReceivedFunds(db: Sql, businessId: string): Promise<boolean> {
  const { rows } = await db.query<{ received: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM payments WHERE business_id = $1 AND (status IN ('succeeded', 'underpaid') OR COALESCE((state->>'amountReceived')::bigint, 0) > 0))
         OR EXISTS (SELECT 1 FROM referral_payouts WHERE referrer_business_id = $1 AND amount > 0) AS received`,
    [businessId],
    'businesses_received_funds',
  );
  return rows[0]?.received === true;
}

@QueryHandler(HasReceivedFundsQuery)
export class HasReceivedFundsHandler implements IQueryHandler<HasReceivedFundsQuery> {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  execute({ businessId }: HasReceivedFundsQuery): Promise<boolean> {
    return hasReceivedFunds(this.db, businessId);
  }
}
