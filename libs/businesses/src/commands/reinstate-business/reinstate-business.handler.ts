import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { businessDecider } from '../../business.decider';
import { Business } from '../../views';
import { API_KEY_CACHE, ApiKeyCache } from '../api-key-cache';
import { BusinessWrites } from '../business-writes';
import { ReinstateBusinessCommand } from './reinstate-business.command';

/**
 * Decides the reinstatement on the business's stream and appends it (CommandRunner: then the
 * read models waited for). 404 not_found for an unknown business, 400 invalid_request when it is
 * not suspended. The authentication cache is told, as for a suspension.
 */
@CommandHandler(ReinstateBusinessCommand)
export class ReinstateBusinessHandler implements ICommandHandler<ReinstateBusinessCommand> {
  constructor(
    private readonly writes: BusinessWrites,
    @Inject(API_KEY_CACHE) private readonly cache: ApiKeyCache,
  ) {}

  async execute({ businessId, meta }: ReinstateBusinessCommand): Promise<Business> {
    await this.writes.run(businessDecider, businessId, { type: 'ReinstateBusiness', businessId }, meta);
    this.cache.businessChanged(businessId);
    return this.writes.business(businessId);
  }
}
