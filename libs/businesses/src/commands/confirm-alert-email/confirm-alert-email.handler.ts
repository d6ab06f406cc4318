import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { businessDecider } from '../../business.decider';
import { DomainError } from '../../domain-error';
import type { Business } from '../../views';
import { asHttpRefusal } from '../alert-mail-refusals';
import { BusinessWrites } from '../business-writes';
import { ConfirmAlertEmailCommand } from './confirm-alert-email.command';

/**
 * Decides the code on the business's stream (spec §4): a wrong code is recorded
 * (AlertEmailCodeRejected, the 5th one locks codes until a new one) and answered 400
 * invalid_code; the right one confirms the address (`business.updated` follows from the events
 * projection). 429s carry Retry-After. Answers the business as its stream now leaves it.
 */
@CommandHandler(ConfirmAlertEmailCommand)
export class ConfirmAlertEmailHandler implements ICommandHandler<ConfirmAlertEmailCommand> {
  constructor(private readonly writes: BusinessWrites) {}

  async execute({ businessId, actingFor, code, meta }: ConfirmAlertEmailCommand): Promise<Business> {
    if (businessId !== actingFor) throw new DomainError('not_found', `No business ${businessId}.`);
    let rejected = false;
    try {
      const result = await this.writes.run(businessDecider, businessId, { type: 'ConfirmAlertEmail', businessId, code }, meta);
      rejected = result.appended.some((a) => a.event.type === 'AlertEmailCodeRejected');
    } catch (error) {
      throw asHttpRefusal(error);
    }
    if (rejected) throw new DomainError('invalid_code', 'That is not the code e-mailed to the new alert address.', 'code');
    return this.writes.business(businessId);
  }
}
