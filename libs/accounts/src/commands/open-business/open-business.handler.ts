import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Business, BusinessService } from '@lib/businesses';
import { AccountWrites } from '../../app/account-writes';
import { OpenBusinessCommand } from './open-business.command';

/**
 * A signed-in person's new business (POST /businesses; decision 0039): created exactly as verify
 * creates the first one — BusinessService.createBusiness (the operator's path, with a simulated
 * business's wallet), then JoinBusiness as owner on the person's stream (the extension point of
 * decision 0034). The business's first keys exist but their secrets are shown nowhere: the
 * person creates or rolls a key from the dashboard (POST /api-keys, /api-keys/{id}/roll).
 */
@CommandHandler(OpenBusinessCommand)
export class OpenBusinessHandler implements ICommandHandler<OpenBusinessCommand, Business> {
  constructor(
    private readonly writes: AccountWrites,
    private readonly businesses: BusinessService,
  ) {}

  async execute({ accountId, input, meta }: OpenBusinessCommand): Promise<Business> {
    const created = await this.businesses.createBusiness({ name: input.name, simulated: input.simulated ?? false, ...(input.referral_code === undefined ? {} : { referral_code: input.referral_code }), ...meta });
    await this.writes.account(accountId, { type: 'JoinBusiness', businessId: created.business.id, role: 'owner' }, meta);
    return created.business;
  }
}
