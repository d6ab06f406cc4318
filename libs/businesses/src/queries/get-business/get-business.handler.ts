import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { DomainError } from '../../domain-error';
import { Business, BusinessRow, businessView } from '../../views';
import { GetBusinessQuery } from './get-business.query';

/** The business as the `businesses` projection has it, or null. */
export async function findBusiness(db: Sql, id: string): Promise<Business | null> {
  const { rows } = await db.query<BusinessRow>(
    `SELECT * FROM businesses WHERE id = $1`,
    [id],
    'businesses_get',
  );
  return rows[0] ? businessView(rows[0]) : null;
}

@QueryHandler(GetBusinessQuery)
export class GetBusinessHandler implements IQueryHandler<GetBusinessQuery> {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  async execute({ businessId }: GetBusinessQuery): Promise<Business> {
    const business = await findBusiness(this.db, businessId);
    if (!business) throw new DomainError('not_found', `No business ${businessId}.`);
    return business;
  }
}
