import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { hasReceivedFunds } from '@lib/wallets';
import { HasReceivedFundsQuery } from './has-received-funds.query';

/** The statement lives in libs/wallets beside the wallet's deletion (decision 0041); re-exported here for the businesses capability's callers. */
export { hasReceivedFunds };

@QueryHandler(HasReceivedFundsQuery)
export class HasReceivedFundsHandler implements IQueryHandler<HasReceivedFundsQuery> {
  constructor(@Inject(DATABASE) private readonly db: Sql) {}

  execute({ businessId }: HasReceivedFundsQuery): Promise<boolean> {
    return hasReceivedFunds(this.db, businessId);
  }
}
