import { Command } from '@nestjs/cqrs';
import type { ActingBusiness } from '../../app/access';
import type { TestClockView } from '../../queries/get-test-clock/get-test-clock.query';

/**
 * POST /test_clock/advance: a simulated business moves its clock; every timer due by then fires
 * before the answer. Resolves how many fired, and the clock once they have (`clock`: the offset
 * this move left, at the wall time of the answer).
 */
export class AdvanceTestClockCommand extends Command<AdvancedTestClock> {
  constructor(
    readonly business: ActingBusiness,
    readonly seconds: number,
  ) {
    super();
  }
}

export interface AdvancedTestClock {
  now: Date;
  fired: number;
  clock: TestClockView;
}
