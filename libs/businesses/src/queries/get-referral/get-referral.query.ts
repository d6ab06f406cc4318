import { Query } from '@nestjs/cqrs';

/** What a sign-up page shows for a referral code (GET /public/referrals/{code}; decision 0035). */
export interface ReferralView {
  kind: 'referral';
  code: string;
  /** The referrer as customers know it: its checkout display name, else its name. */
  referrer: { name: string };
  /** The referrer's share of the new business's service fees (basis points), for the page to say so. */
  fee_share_bps: number;
}

/** A referral code's public view: 404 not_found for an unknown code or a suspended referrer. */
export class GetReferralQuery extends Query<ReferralView> {
  constructor(readonly code: string) {
    super();
  }
}
