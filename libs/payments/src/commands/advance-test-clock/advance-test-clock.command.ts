import { Command } from '@nestjs/cqrs';
import type { ActingBusiness } from '../../app/access';

/** POST /test_clock/advance: a simulated business moves its clock; every timer due by then fires before the answer. Resolves how many fired. */
export class AdvanceTestClockCommand extends Command<{ now: Date; fired: number }> {
  constructor(
    readonly business: ActingBusiness,
    readonly seconds: number,
  ) {
    super();
  }
}
