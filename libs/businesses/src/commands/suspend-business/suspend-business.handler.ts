import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { businessDecider } from '../../business.decider';
import { Business } from '../../views';
import { API_KEY_CACHE, ApiKeyCache } from '../api-key-cache';
import { BusinessWrites } from '../business-writes';
import { validInput } from '../valid-input';
import { SuspendBusinessCommand } from './suspend-business.command';
import { SuspendBusinessDto } from './suspend-business.dto';

/**
 * Validates the reason, decides the suspension on the business's stream and appends it
 * (CommandRunner: then the read models waited for). 404 not_found for an unknown business, 403
 * business_suspended when it already is. This process's authentication cache forgets the
 * business at once; other processes see it once their cache entries expire (2 s by default).
 */
@CommandHandler(SuspendBusinessCommand)
export class SuspendBusinessHandler implements ICommandHandler<SuspendBusinessCommand> {
  constructor(
    private readonly writes: BusinessWrites,
    @Inject(API_KEY_CACHE) private readonly cache: ApiKeyCache,
  ) {}

  async execute({ businessId, input, meta }: SuspendBusinessCommand): Promise<Business> {
    const valid = await validInput(SuspendBusinessDto, input);
    await this.writes.run(businessDecider, businessId, { type: 'SuspendBusiness', businessId, reason: valid.reason }, meta);
    this.cache.businessChanged(businessId);
    return this.writes.business(businessId);
  }
}
