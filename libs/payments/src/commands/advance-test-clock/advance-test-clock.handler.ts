import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusinessClock } from '../../app/business-clock';
import { TimerFiring } from '../../app/timer-firing';
import { PaymentDomainError } from '../../domain/errors';
import { AdvanceTestClockCommand } from './advance-test-clock.command';

/**
 * Advances a test clock (decisions 0010, 0011): a simulated business only (else 403
 * test_mode_unavailable), then the clock moves and its due timers fire in due order — each one
 * decided, appended and settled by TimerFiring — and the read models are waited for.
 */
@CommandHandler(AdvanceTestClockCommand)
export class AdvanceTestClockHandler implements ICommandHandler<AdvanceTestClockCommand, { now: Date; fired: number }> {
  constructor(
    private readonly clock: BusinessClock,
    private readonly timers: TimerFiring,
  ) {}

  async execute({ business, seconds }: AdvanceTestClockCommand): Promise<{ now: Date; fired: number }> {
    if (!business.simulated) throw new PaymentDomainError('test_mode_unavailable', 'Only a simulated business has a test clock.');
    const now = await this.clock.advance(business.id, seconds);
    const fired = await this.timers.fireDue(business.id);
    return { now, fired };
  }
}
