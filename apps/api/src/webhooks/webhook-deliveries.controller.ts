import { Controller, Get, Param, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import { GetDeliveryQuery, ListDeliveriesQuery, ResendDeliveryCommand } from '@lib/webhooks';
import { RequiresPermission } from '../auth/auth.decorators';
import { Auth, CurrentBusiness, RequestAuth } from '../auth/request-auth';
import { ApiErrors, dataOf } from '../platform/openapi';
import { RateLimit } from '../platform/rate-limit.guard';
import { PostAction } from '../platform/route-presets';
import { ApiDeliveryLog } from './delivery-log';
import { readableSegments } from './request-context';
import { DELIVERY_SCHEMA } from './schemas';

/** The business's delivery log across endpoints, one delivery, and resending one (use cases in libs/webhooks/src/app). */
@ApiTags('webhooks')
@Controller('webhook_deliveries')
export class WebhookDeliveriesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiOperation({
    summary: 'List webhook deliveries',
    description: 'Newest first, across endpoints (deleted ones included); a restricted key sees only deliveries of events it can read.',
  })
  @ApiQuery({ name: 'webhook_id', required: false })
  @ApiDeliveryLog()
  @RequiresPermission('webhooks', 'read')
  @Get()
  async list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>, @Auth() auth: RequestAuth) {
    return this.queries.execute(new ListDeliveriesQuery(business.id, query, readableSegments(auth)));
  }

  @ApiOperation({ summary: 'Retrieve a webhook delivery', description: 'With every attempt, the last request headers and the payload.' })
  @ApiParam({ name: 'id', description: 'dlv_…' })
  @ApiOkResponse({ description: 'The delivery.', schema: dataOf(DELIVERY_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('webhooks', 'read')
  @Get(':id')
  async get(@CurrentBusiness() business: Business, @Param('id') id: string, @Auth() auth: RequestAuth) {
    return { data: await this.queries.execute(new GetDeliveryQuery(business.id, id, readableSegments(auth))) };
  }

  @ApiOperation({
    summary: 'Resend a webhook delivery',
    description:
      'Sends the same payload (same webhook-id) to the endpoint now and answers with the delivery: the attempt is recorded with trigger `manual`; success ends any automatic retries, failure leaves them as they were. 10 test events and resends per minute per business.',
  })
  @ApiParam({ name: 'id', description: 'dlv_…' })
  @ApiOkResponse({ description: 'The delivery with the new attempt.', schema: dataOf(DELIVERY_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('webhooks', 'write')
  @RateLimit('webhooks.test_and_resend')
  @PostAction(':id/resend')
  async resend(@CurrentBusiness() business: Business, @Param('id') id: string, @Auth() auth: RequestAuth) {
    return { data: await this.commands.execute(new ResendDeliveryCommand(business.id, id, readableSegments(auth))) };
  }
}
