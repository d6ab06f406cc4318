import { Query } from '@nestjs/cqrs';
import type { ActingBusiness } from '../../app/access';

/** A simulated business's clock (decision 0011). */
export interface TestClockView {
  kind: 'test_clock';
  business_id: string;
  /** The business's own time (ISO 8601). */
  now: string;
  /** How far it runs ahead of wall time, in whole seconds. */
  offset_seconds: number;
}

/** GET /test_clock, and the answer of POST /test_clock/advance. */
export class GetTestClockQuery extends Query<TestClockView> {
  constructor(readonly business: ActingBusiness) {
    super();
  }
}

/** The clock of a business whose test clock runs `offsetMs` ahead of the wall time `wallNow`. */
export function testClockView(businessId: string, offsetMs: number, wallNow: Date): TestClockView {
  return { kind: 'test_clock', business_id: businessId, now: new Date(wallNow.getTime() + offsetMs).toISOString(), offset_seconds: Math.max(0, Math.round(offsetMs / 1000)) };
}
