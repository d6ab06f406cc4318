import { Controller, Param, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import { GetDeliveryQuery, ListDeliveriesQuery, ResendDeliveryCommand } from '@lib/webhooks';
import { Auth, CurrentBusiness, RequestAuth } from '../auth/request-auth';
import { ActionRoute, GetRoute } from '../platform/route-presets';
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

  @ApiQuery({ name: 'webhook_id', required: false })
  @ApiDeliveryLog()
  @GetRoute(undefined, { summary: 'List webhook deliveries', description: 'Newest first, across endpoints (deleted ones included); a restricted key sees only deliveries of events it can read.', access: ['webhooks', 'read'] })
  async list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>, @Auth() auth: RequestAuth) {
    return this.queries.execute(new ListDeliveriesQuery(business.id, query, readableSegments(auth)));
  }

  @GetRoute(':id', { summary: 'Retrieve a webhook delivery', id: 'dlv_…', description: 'With every attempt, the last request headers and the payload.', data: [DELIVERY_SCHEMA, 'The delivery.'], errors: ['not_found'], access: ['webhooks', 'read'] })
  async get(@CurrentBusiness() business: Business, @Param('id') id: string, @Auth() auth: RequestAuth) {
    return { data: await this.queries.execute(new GetDeliveryQuery(business.id, id, readableSegments(auth))) };
  }

  @ActionRoute(':id/resend', { summary: 'Resend a webhook delivery', id: 'dlv_…', description: 'Sends the same payload (same webhook-id) to the endpoint now and answers with the delivery: the attempt is recorded with trigger `manual`; success ends any automatic retries, failure leaves them as they were. 10 test events and resends per minute per business. A restricted key cannot resend a delivery of an endpoint subscribed to a type it cannot read (403 permission_denied), even a delivery it can read.', data: [DELIVERY_SCHEMA, 'The delivery with the new attempt.'], errors: ['not_found'], errorWhen: { permission_denied: 'the delivery’s endpoint is subscribed to an event type whose resource the restricted key cannot read (decision 0013); nothing sent' }, access: ['webhooks', 'write'], rateLimit: 'webhooks.test_and_resend' })
  async resend(@CurrentBusiness() business: Business, @Param('id') id: string, @Auth() auth: RequestAuth) {
    return { data: await this.commands.execute(new ResendDeliveryCommand(business.id, id, readableSegments(auth))) };
  }
}
