import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusinessClock } from '../../app/business-clock';
import { PaymentDomainError } from '../../domain/errors';
import { GetTestClockQuery, TestClockView, testClockView } from './get-test-clock.query';

/** The business's clock; a live business has none (403 test_mode_unavailable). */
@QueryHandler(GetTestClockQuery)
export class GetTestClockHandler implements IQueryHandler<GetTestClockQuery, TestClockView> {
  constructor(private readonly clock: BusinessClock) {}

  async execute({ business }: GetTestClockQuery): Promise<TestClockView> {
    if (!business.simulated) throw new PaymentDomainError('test_mode_unavailable', 'Only a simulated business has a test clock.');
    const now = await this.clock.now(business.id);
    const wall = this.clock.wallNow();
    return testClockView(business.id, now.getTime() - wall.getTime(), wall);
  }
}
