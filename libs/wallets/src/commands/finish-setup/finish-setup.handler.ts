import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusinessSetupView, setupView } from '../../changes/setup';
import { WalletChanges } from '../../changes/wallet-changes';
import { FinishSetupCommand } from './finish-setup.command';

/**
 * Finishes the business's setup (decision 0041): a wallet is required (409 wallet_required);
 * finishing again changes nothing and answers the same. BusinessSetupFinished goes on the
 * business's wallet stream, whose one rule it is: a deletion decided on the same stream sees it.
 */
@CommandHandler(FinishSetupCommand)
export class FinishSetupHandler implements ICommandHandler<FinishSetupCommand, BusinessSetupView> {
  constructor(private readonly changes: WalletChanges) {}

  async execute({ businessId, meta }: FinishSetupCommand): Promise<BusinessSetupView> {
    const at = (await this.changes.now(businessId)).toISOString();
    const result = await this.changes.run(businessId, { type: 'FinishSetup', businessId, at }, meta);
    return setupView(businessId, result.state);
  }
}
