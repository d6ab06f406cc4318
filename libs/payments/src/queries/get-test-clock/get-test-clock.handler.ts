import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusinessClock } from '../../app/business-clock';
import { PaymentDomainError } from '../../domain/errors';
import { GetTestClockQuery, TestClockView } from './get-test-clock.query';

/** The business's clock; a live business has none (403 test_mode_unavailable). */
@QueryHandler(GetTestClockQuery)
export class GetTestClockHandler implements IQueryHandler<GetTestClockQuery, TestClockView> {
  constructor(private readonly clock: BusinessClock) {}

  async execute({ business }: GetTestClockQuery): Promise<TestClockView> {
    if (!business.simulated) throw new PaymentDomainError('test_mode_unavailable', 'Only a simulated business has a test clock.');
    const now = await this.clock.now(business.id);
    const offsetMs = now.getTime() - this.clock.wallNow().getTime();
    return { kind: 'test_clock', business_id: business.id, now: now.toISOString(), offset_seconds: Math.max(0, Math.round(offsetMs / 1000)) };
  }
}
