import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusinessSetupView, setupView } from '../../changes/setup';
import { WalletChanges } from '../../changes/wallet-changes';
import { GetSetupQuery } from './get-setup.query';

/** The setup from the business's wallet stream (its one source: no read model to wait for). */
@QueryHandler(GetSetupQuery)
export class GetSetupHandler implements IQueryHandler<GetSetupQuery> {
  constructor(private readonly changes: WalletChanges) {}

  async execute({ businessId }: GetSetupQuery): Promise<BusinessSetupView> {
    return setupView(businessId, await this.changes.state(businessId));
  }
}
