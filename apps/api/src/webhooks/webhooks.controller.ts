import { Body, Controller, Param, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiTags } from '@nestjs/swagger';
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
import { Auth, CurrentBusiness, RequestAuth, accessOf, actorOf, writeMeta } from '../auth/request-auth';
import { ActionRoute, ApiPage, ChangeRoute, CreateRoute, DeleteRoute, GetRoute } from '../platform/route-presets';
import { ApiDeliveryLog } from './delivery-log';
import { readableSegments } from './request-context';
import { DELIVERY_SCHEMA, WEBHOOK_SCHEMA, WEBHOOK_WITH_SECRET_SCHEMA } from './schemas';

/** A restricted key manages only endpoints whose every type it can read (decision 0013, addendum of 2026-11-29). */
const CANNOT_MANAGE = 'the endpoint is subscribed to an event type whose resource the restricted key cannot read (decision 0013); nothing changed';
const SUBSCRIBES_ONLY_READABLE = ' A restricted key subscribes only to event types whose resource it can read (payment.* needs payments read access, customer.* customers, link.* links, business.* business, wallet_transaction.* wallet), and to "*" only if it reads every resource events are about (payments, checkouts, customers, links, business, webhooks, wallet); else 403 permission_denied, field event_types.';
const MANAGES_ONLY_READABLE = ' A restricted key cannot use this on an endpoint subscribed to a type it cannot read (403 permission_denied).';

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

  @ApiBody({ type: CreateWebhookBody })
  @CreateRoute(undefined, { summary: 'Create a webhook endpoint', description: `Answers with the whole signing secret in \`secret\`, this once (afterwards only \`secret_hint\`). The Idempotency-Key is ignored: a retry creates a second endpoint. A business has at most 16 endpoints (409 webhook_limit).${SUBSCRIBES_ONLY_READABLE}`, data: [WEBHOOK_WITH_SECRET_SCHEMA, 'The endpoint, with its secret.'], errors: ['webhook_limit'], errorWhen: { permission_denied: '`event_types` holds a type whose resource the restricted key cannot read, or "*" for a key that does not read them all (field event_types); nothing created' }, access: ['webhooks', 'write'], shownOnce: true })
  async create(@CurrentBusiness() business: Business, @Body() body: CreateWebhookBody, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    return { data: await this.commands.execute(new CreateEndpointCommand(business.id, body, readableSegments(auth), writeMeta(request))) };
  }

  @ApiPage(WEBHOOK_SCHEMA, 'A page of endpoints.', 'next_cursor of the previous page.')
  @GetRoute(undefined, { summary: 'List webhook endpoints', description: 'Newest first; deleted endpoints are not listed. A restricted key lists every endpoint, whatever it is subscribed to (the secret is never shown).', access: ['webhooks', 'read'] })
  async list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListEndpointsQuery(business.id, query));
  }

  @GetRoute(':id', { summary: 'Retrieve a webhook endpoint', id: 'whk_…', description: 'A restricted key reads any endpoint of its business, whatever it is subscribed to (it holds no secret, only secret_hint).', data: [WEBHOOK_SCHEMA, 'The endpoint.'], errors: ['not_found'], access: ['webhooks', 'read'] })
  async get(@CurrentBusiness() business: Business, @Param('id') id: string) {
    return { data: await this.queries.execute(new GetEndpointQuery(business.id, id)) };
  }

  @ApiBody({ type: UpdateWebhookBody })
  @ChangeRoute(':id', { summary: 'Change a webhook endpoint', id: 'whk_…', description: `Send only what changes. \`enabled: false\` stops new deliveries and keeps the settings.${MANAGES_ONLY_READABLE}${SUBSCRIBES_ONLY_READABLE}`, data: [WEBHOOK_SCHEMA, 'The endpoint as changed.'], errors: ['not_found'], errorWhen: { permission_denied: `${CANNOT_MANAGE}; or \`event_types\` holds a type the key cannot read (field event_types)` }, access: ['webhooks', 'write'] })
  async update(@CurrentBusiness() business: Business, @Param('id') id: string, @Body() body: UpdateWebhookBody, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    return { data: await this.commands.execute(new UpdateEndpointCommand(business.id, id, body ?? {}, readableSegments(auth), writeMeta(request))) };
  }

  @DeleteRoute(':id', { summary: 'Delete a webhook endpoint', id: 'whk_…', description: 'No new deliveries; pending retries end as failed; its delivery log answers 404 from now on.', data: [WEBHOOK_SCHEMA, 'The endpoint as it was, with `deleted: true`.'], errors: ['not_found'], access: ['webhooks', 'write'] })
  async delete(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new DeleteEndpointCommand(business.id, id, writeMeta(request))) };
  }

  @ActionRoute(':id/rotate-secret', { summary: 'Rotate the signing secret', id: 'whk_…', description: `Answers with the new secret, this once. For 24 hours deliveries carry two signatures, space-separated: the new secret’s and the old one’s (\`previous_secret_expires_at\`). The Idempotency-Key is ignored.${MANAGES_ONLY_READABLE}`, data: [WEBHOOK_WITH_SECRET_SCHEMA, 'The endpoint, with its new secret.'], errors: ['not_found'], errorWhen: { permission_denied: CANNOT_MANAGE }, access: ['webhooks', 'write'], shownOnce: true })
  async rotateSecret(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest, @Auth() auth: RequestAuth) {
    return { data: await this.commands.execute(new RotateSecretCommand(business.id, id, readableSegments(auth), writeMeta(request))) };
  }

  @CreateRoute(':id/test', { summary: 'Send a test event', id: 'whk_…', description: `Sends a \`webhook.test\` event (data: the endpoint) to the endpoint now, enabled or not, and answers with the delivery (one attempt, trigger \`test\`, no retries). 10 test events and resends per minute per business.${MANAGES_ONLY_READABLE}`, data: [DELIVERY_SCHEMA, 'The test delivery.'], errors: ['not_found'], errorWhen: { permission_denied: CANNOT_MANAGE }, access: ['webhooks', 'write'], rateLimit: 'webhooks.test_and_resend' })
  async test(@CurrentBusiness() business: Business, @Param('id') id: string, @Auth() auth: RequestAuth) {
    const mode = accessOf(auth).mode;
    return { data: await this.commands.execute(new SendTestEventCommand(business.id, id, actorOf(auth), mode, readableSegments(auth))) };
  }

  @ApiDeliveryLog()
  @GetRoute(':id/deliveries', { summary: 'An endpoint’s delivery log', id: 'whk_…', description: 'Newest first; the same as GET /webhook_deliveries?webhook_id=…, except that an unknown or deleted endpoint gives 404.', errors: ['not_found'], access: ['webhooks', 'read'] })
  async deliveriesOf(@CurrentBusiness() business: Business, @Param('id') id: string, @Query() query: Record<string, unknown>, @Auth() auth: RequestAuth) {
    return this.queries.execute(new ListDeliveriesQuery(business.id, query, readableSegments(auth), id));
  }
}
