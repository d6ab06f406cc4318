import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusinessClock } from '../../app/business-clock';
import { TimerFiring } from '../../app/timer-firing';
import { PaymentDomainError } from '../../domain/errors';
import { testClockView } from '../../queries/get-test-clock/get-test-clock.query';
import { AdvanceTestClockCommand, AdvancedTestClock } from './advance-test-clock.command';

/**
 * Advances a test clock (decisions 0010, 0011): a simulated business only (else 403
 * test_mode_unavailable), then the clock moves and its due timers fire in due order — each one
 * decided, appended and settled by TimerFiring — and the read models are waited for. The answer's
 * clock is the offset this move left at the wall time of the answer (not read again).
 */
@CommandHandler(AdvanceTestClockCommand)
export class AdvanceTestClockHandler implements ICommandHandler<AdvanceTestClockCommand, AdvancedTestClock> {
  constructor(
    private readonly clock: BusinessClock,
    private readonly timers: TimerFiring,
  ) {}

  async execute({ business, seconds }: AdvanceTestClockCommand): Promise<AdvancedTestClock> {
    if (!business.simulated) throw new PaymentDomainError('test_mode_unavailable', 'Only a simulated business has a test clock.');
    // the timers due by the moved clock are listed in the move's own statement: a worker's poll cannot have fired one before that look
    const { now, offsetMs, due, movedAt } = await this.clock.advanceListingDue(business.id, seconds);
    const fired = await this.timers.fireDue(business.id, undefined, { due, movedAt });
    return { now, fired, clock: testClockView(business.id, offsetMs, this.clock.wallNow()) };
  }
}
