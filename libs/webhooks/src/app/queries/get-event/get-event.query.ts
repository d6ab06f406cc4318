import { Query } from '@nestjs/cqrs';
import type { ApiEvent } from '../../../read/events.projector';

/** GET /events/{id}. `segments`: the first segments of the event types the caller may read, null for all. */
export class GetEventQuery extends Query<ApiEvent> {
  constructor(
    readonly businessId: string,
    readonly eventId: string,
    readonly segments: string[] | null,
  ) {
    super();
  }
}
