import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { Page, businessFilters, pageRequest } from '@lib/http';
import { EventQueries, eventCursorFilters } from '../../../read/event-queries';
import type { ApiEvent } from '../../../read/events.projector';
import { readQuery, readers } from '../query-params';
import { ListEventsQuery } from './list-events.query';

/** Reads the query string strictly (400 naming the parameter), then a page of the `events` projection. */
@QueryHandler(ListEventsQuery)
export class ListEventsHandler implements IQueryHandler<ListEventsQuery> {
  private readonly events: EventQueries;

  constructor(@Inject(DATABASE) db: Sql) {
    this.events = new EventQueries(db);
  }

  async execute({ businessId, query, segments }: ListEventsQuery): Promise<Page<ApiEvent>> {
    const { values, page } = readQuery(query, { type: readers.eventType, subject_id: readers.objectId });
    return this.events.list(businessId, values, segments, pageRequest('events', businessFilters(businessId, eventCursorFilters(values)), page));
  }
}
