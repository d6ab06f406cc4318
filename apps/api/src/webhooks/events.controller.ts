import { Controller, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import { EVENT_TYPES, GetEventQuery, ListEventsQuery } from '@lib/webhooks';
import { RequiresPermission } from '../auth/auth.decorators';
import { Auth, CurrentBusiness, RequestAuth } from '../auth/request-auth';
import { ApiPage, GetRoute } from '../platform/route-presets';
import { readableSegments } from './request-context';
import { EVENT_SCHEMA } from './schemas';

/**
 * Events (spec §6) read back: what webhooks deliver, from the `events` projection (queries in
 * libs/webhooks/src/app). Every route reads events: restricted keys need read access to them.
 */
@ApiTags('events')
@RequiresPermission('events', 'read')
@Controller('events')
export class EventsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiQuery({ name: 'type', required: false })
  @ApiQuery({ name: 'subject_id', required: false })
  @ApiPage(EVENT_SCHEMA, 'A page of events.')
  @GetRoute(undefined, { summary: 'List events', description: `Newest first. Types: ${EVENT_TYPES.join(', ')}.` })
  async list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>, @Auth() auth: RequestAuth) {
    return this.queries.execute(new ListEventsQuery(business.id, query, readableSegments(auth)));
  }

  @GetRoute(':id', { summary: 'Retrieve an event', id: 'evt_…', data: [EVENT_SCHEMA, 'The event.'], errors: ['not_found'] })
  async get(@CurrentBusiness() business: Business, @Param('id') id: string, @Auth() auth: RequestAuth) {
    return { data: await this.queries.execute(new GetEventQuery(business.id, id, readableSegments(auth))) };
  }
}
