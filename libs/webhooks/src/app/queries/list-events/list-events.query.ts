import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { ApiEvent } from '../../../read/events.projector';
import type { RawQuery } from '../query-params';

/**
 * GET /events: newest first; filters `type`, `subject_id`; `limit`, `cursor`. `segments`: the
 * first segments of the event types the caller may read (a restricted key), null for all.
 */
export class ListEventsQuery extends Query<Page<ApiEvent>> {
  constructor(
    readonly businessId: string,
    readonly query: RawQuery,
    readonly segments: string[] | null,
  ) {
    super();
  }
}
