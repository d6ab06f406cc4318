import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { DomainError } from '../../domain-error';
import { REFERRAL_SHARE_BPS, normalizeReferralCode } from '../../referrals';
import { GetReferralQuery, ReferralView } from './get-referral.query';

@QueryHandler(GetReferralQuery)
export class GetReferralHandler implements IQueryHandler<GetReferralQuery> {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  async execute({ code: given }: GetReferralQuery): Promise<ReferralView> {
    const code = normalizeReferralCode(given);
    const unknown = new DomainError('not_found', 'No business has this referral code.');
    if (code === null) throw unknown;
    const { rows } = await this.db.query<{ name: string; display_name: string | null }>(
      `SELECT b.name, s.settings->>'display_name' AS display_name FROM businesses b LEFT JOIN checkout_settings s ON s.business_id = b.id
       WHERE b.referral_code = $1 AND b.status = 'active' LIMIT 1`,
      [code],
      'businesses_referral',
    );
    const row = rows[0];
    if (!row) throw unknown;
    return { kind: 'referral', code, referrer: { name: row.display_name ?? row.name }, fee_share_bps: REFERRAL_SHARE_BPS };
  }
}
