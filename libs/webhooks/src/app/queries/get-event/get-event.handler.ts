import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DATABASE } from '@lib/core';
import type { Sql } from '@lib/database';
import { EventQueries } from '../../../read/event-queries';
import type { ApiEvent } from '../../../read/events.projector';
import { GetEventQuery } from './get-event.query';

@QueryHandler(GetEventQuery)
export class GetEventHandler implements IQueryHandler<GetEventQuery> {
  private readonly events: EventQueries;

  constructor(@Inject(DATABASE) db: Sql) {
    this.events = new EventQueries(db);
  }

  execute({ businessId, eventId, segments }: GetEventQuery): Promise<ApiEvent> {
    return this.events.get(businessId, eventId, segments);
  }
}
