import { Query } from '@nestjs/cqrs';

/**
 * Whether the business has received any payment or referral payout (spec §3: DELETE /wallet's
 * 24-hour hold applies once it has; "fees and referral payouts count"). A payment counts once
 * it succeeded or was underpaid, or anything arrived on it.
 */
export class HasReceivedFundsQuery extends Query<boolean> {
  constructor(readonly businessId: string) {
    super();
  }
}
