import { Query } from '@nestjs/cqrs';
import type { Business } from '../../views';

/** The business object (GET /business): 404 not_found when there is none. */
export class GetBusinessQuery extends Query<Business> {
  constructor(readonly businessId: string) {
    super();
  }
}
