import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import { pageRequest } from '@lib/http';
import { EVENT_TYPES, EventQueries, eventCursorFilters } from '@lib/webhooks';
import { RequiresPermission } from '../auth/auth.decorators';
import { Auth, CurrentBusiness, RequestAuth } from '../auth/request-auth';
import { ApiErrors, dataOf } from '../platform/openapi';
import { readQuery, readableSegments, readers } from './request-context';
import { EVENT_SCHEMA, listOf } from './schemas';

/** Events (spec §6) read back: what webhooks deliver, from the `events` projection. */
@ApiTags('events')
@Controller('events')
export class EventsController {
  constructor(@Inject(EventQueries) private readonly events: EventQueries) {}

  @ApiOperation({ summary: 'List events', description: `Newest first. Types: ${EVENT_TYPES.join(', ')}.` })
  @ApiQuery({ name: 'type', required: false })
  @ApiQuery({ name: 'subject_id', required: false })
  @ApiQuery({ name: 'limit', required: false, description: '1 to 100, default 25.' })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiOkResponse({ description: 'A page of events.', schema: listOf(EVENT_SCHEMA) })
  @RequiresPermission('events', 'read')
  @Get()
  async list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>, @Auth() auth: RequestAuth) {
    const { values, page } = readQuery(query, { type: readers.eventType, subject_id: readers.objectId });
    return this.events.list(business.id, values, readableSegments(auth), pageRequest('events', eventCursorFilters(values), page));
  }

  @ApiOperation({ summary: 'Retrieve an event' })
  @ApiParam({ name: 'id', description: 'evt_…' })
  @ApiOkResponse({ description: 'The event.', schema: dataOf(EVENT_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('events', 'read')
  @Get(':id')
  async get(@CurrentBusiness() business: Business, @Param('id') id: string, @Auth() auth: RequestAuth) {
    return { data: await this.events.get(business.id, id, readableSegments(auth)) };
  }
}
