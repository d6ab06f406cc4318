import { Query } from '@nestjs/cqrs';
import type { BusinessSetupView } from '../../changes/setup';

/** GET /businesses/{id}/setup (decision 0041): whether the business is still in setup, and what finishing needs. */
export class GetSetupQuery extends Query<BusinessSetupView> {
  constructor(readonly businessId: string) {
    super();
  }
}
