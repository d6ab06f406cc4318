import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Business } from '@lib/businesses';
import {
  CreateEndpointCommand,
  CreateWebhookBody,
  DeleteEndpointCommand,
  GetEndpointQuery,
  ListDeliveriesQuery,
  ListEndpointsQuery,
  RotateSecretCommand,
  SendTestEventCommand,
  UpdateEndpointCommand,
  UpdateWebhookBody,
} from '@lib/webhooks';
import { RequiresPermission } from '../auth/auth.decorators';
import { Auth, CurrentBusiness, RequestAuth, accessOf, actorOf, writeMeta } from '../auth/request-auth';
import { IdempotencyKeyIgnored } from '../platform/idempotency.interceptor';
import { ApiErrors, dataOf } from '../platform/openapi';
import { RateLimit } from '../platform/rate-limit.guard';
import { ApiPage, PostAction } from '../platform/route-presets';
import { ApiDeliveryLog } from './delivery-log';
import { readableSegments } from './request-context';
import { DELIVERY_SCHEMA, WEBHOOK_SCHEMA, WEBHOOK_WITH_SECRET_SCHEMA } from './schemas';

/**
 * Webhook endpoints (spec §4): create, list, read, change, delete, rotate the secret, test,
 * delivery log. Each route builds its command or query and sends it on the bus; the use cases
 * are in libs/webhooks/src/app.
 */
@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiOperation({
    summary: 'Create a webhook endpoint',
    description:
      'Answers with the whole signing secret in `secret`, this once (afterwards only `secret_hint`). The Idempotency-Key is ignored: a retry creates a second endpoint. A business has at most 16 endpoints (409 webhook_limit).',
  })
  @ApiBody({ type: CreateWebhookBody })
  @ApiCreatedResponse({ description: 'The endpoint, with its secret.', schema: dataOf(WEBHOOK_WITH_SECRET_SCHEMA) })
  @ApiErrors('webhook_limit')
  @RequiresPermission('webhooks', 'write')
  @IdempotencyKeyIgnored()
  @Post()
  async create(@CurrentBusiness() business: Business, @Body() body: CreateWebhookBody, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new CreateEndpointCommand(business.id, body, writeMeta(request))) };
  }

  @ApiOperation({ summary: 'List webhook endpoints', description: 'Newest first; deleted endpoints are not listed.' })
  @ApiPage(WEBHOOK_SCHEMA, 'A page of endpoints.', 'next_cursor of the previous page.')
  @RequiresPermission('webhooks', 'read')
  @Get()
  async list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListEndpointsQuery(business.id, query));
  }

  @ApiOperation({ summary: 'Retrieve a webhook endpoint' })
  @ApiParam({ name: 'id', description: 'whk_…' })
  @ApiOkResponse({ description: 'The endpoint.', schema: dataOf(WEBHOOK_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('webhooks', 'read')
  @Get(':id')
  async get(@CurrentBusiness() business: Business, @Param('id') id: string) {
    return { data: await this.queries.execute(new GetEndpointQuery(business.id, id)) };
  }

  @ApiOperation({ summary: 'Change a webhook endpoint', description: 'Send only what changes. `enabled: false` stops new deliveries and keeps the settings.' })
  @ApiParam({ name: 'id', description: 'whk_…' })
  @ApiBody({ type: UpdateWebhookBody })
  @ApiOkResponse({ description: 'The endpoint as changed.', schema: dataOf(WEBHOOK_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('webhooks', 'write')
  @Patch(':id')
  async update(@CurrentBusiness() business: Business, @Param('id') id: string, @Body() body: UpdateWebhookBody, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new UpdateEndpointCommand(business.id, id, body ?? {}, writeMeta(request))) };
  }

  @ApiOperation({
    summary: 'Delete a webhook endpoint',
    description: 'No new deliveries; pending retries end as failed; its delivery log answers 404 from now on.',
  })
  @ApiParam({ name: 'id', description: 'whk_…' })
  @ApiOkResponse({ description: 'The endpoint as it was, with `deleted: true`.', schema: dataOf(WEBHOOK_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('webhooks', 'write')
  @Delete(':id')
  async delete(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new DeleteEndpointCommand(business.id, id, writeMeta(request))) };
  }

  @ApiOperation({
    summary: 'Rotate the signing secret',
    description:
      'Answers with the new secret, this once. For 24 hours deliveries carry two signatures, space-separated: the new secret’s and the old one’s (`previous_secret_expires_at`). The Idempotency-Key is ignored.',
  })
  @ApiParam({ name: 'id', description: 'whk_…' })
  @ApiOkResponse({ description: 'The endpoint, with its new secret.', schema: dataOf(WEBHOOK_WITH_SECRET_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('webhooks', 'write')
  @IdempotencyKeyIgnored()
  @PostAction(':id/rotate-secret')
  async rotateSecret(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new RotateSecretCommand(business.id, id, writeMeta(request))) };
  }

  @ApiOperation({
    summary: 'Send a test event',
    description:
      'Sends a `webhook.test` event (data: the endpoint) to the endpoint now, enabled or not, and answers with the delivery (one attempt, trigger `test`, no retries). 10 test events and resends per minute per business.',
  })
  @ApiParam({ name: 'id', description: 'whk_…' })
  @ApiCreatedResponse({ description: 'The test delivery.', schema: dataOf(DELIVERY_SCHEMA) })
  @ApiErrors('not_found')
  @RequiresPermission('webhooks', 'write')
  @RateLimit('webhooks.test_and_resend')
  @Post(':id/test')
  async test(@CurrentBusiness() business: Business, @Param('id') id: string, @Auth() auth: RequestAuth) {
    const mode = accessOf(auth).mode;
    return { data: await this.commands.execute(new SendTestEventCommand(business.id, id, actorOf(auth), mode)) };
  }

  @ApiOperation({
    summary: 'An endpoint’s delivery log',
    description: 'Newest first; the same as GET /webhook_deliveries?webhook_id=…, except that an unknown or deleted endpoint gives 404.',
  })
  @ApiParam({ name: 'id', description: 'whk_…' })
  @ApiDeliveryLog()
  @ApiErrors('not_found')
  @RequiresPermission('webhooks', 'read')
  @Get(':id/deliveries')
  async deliveriesOf(@CurrentBusiness() business: Business, @Param('id') id: string, @Query() query: Record<string, unknown>, @Auth() auth: RequestAuth) {
    return this.queries.execute(new ListDeliveriesQuery(business.id, query, readableSegments(auth), id));
  }
}
