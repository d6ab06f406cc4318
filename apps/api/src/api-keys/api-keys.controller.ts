import { Body, Controller, Get, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  CreateApiKeyCommand,
  CreateApiKeyRequest,
  CreatedKey,
  ListApiKeysQuery,
  RevokeApiKeyCommand,
  RollApiKeyCommand,
  UpdateApiKeyCommand,
  UpdateApiKeyRequest,
  type Business,
} from '@lib/businesses';
import { DashboardOnly } from '../auth/auth.decorators';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { RequiresStepUp, SteppedUp } from '../auth/step-up';
import { ApiErrors, dataOf } from '../platform/openapi';
import { ApiPage, PostAction } from '../platform/route-presets';
import { ShownOnce } from '../platform/shown-once';
import { API_KEY_SCHEMA, NEW_API_KEY_SCHEMA } from './schemas';

/** A key as the create and roll answers show it: once, with its whole secret (@ShownOnce: no-store, never replayed). */
const shownOnce = ({ key, secret }: CreatedKey) => ({ ...key, secret });

/**
 * API key management (spec §5.5–5.6, §7; issue 14 item 9; decision 0039): dashboard sessions
 * only (@DashboardOnly: an API key gets 403 session_required), for the business the
 * Service-Business header names. Creating, rolling and revoking change who can reach the
 * business: they need a step-up within 15 minutes (@RequiresStepUp, 403 step_up_required); so
 * does giving a key more access, which the use case tells from the key's grants (@SteppedUp).
 * Thin: each route sends its use case (libs/businesses) and answers `{data}`.
 */
@ApiTags('api-keys')
@DashboardOnly()
@Controller('api-keys')
export class ApiKeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiOperation({ summary: 'List the business’s API keys, newest first (revoked ones included; never a secret)' })
  @ApiPage(API_KEY_SCHEMA, 'A page of API keys.', 'next_cursor of the previous page.')
  @Get()
  list(@CurrentBusiness() business: Business, @Query() query: Record<string, unknown>) {
    return this.queries.execute(new ListApiKeysQuery(business.id, query));
  }

  @ApiOperation({
    summary: 'Create an API key: secret, restricted (with permissions) or publishable',
    description: 'The answer holds the whole key in `secret`, shown this once (kept only as a hash). The Idempotency-Key header is ignored: a replay would have to keep the secret.',
  })
  @ApiCreatedResponse({ description: 'The key, with its secret shown once.', schema: dataOf(NEW_API_KEY_SCHEMA) })
  @RequiresStepUp()
  @ShownOnce()
  @Post()
  async create(@CurrentBusiness() business: Business, @Body() body: CreateApiKeyRequest, @Req() request: FastifyRequest) {
    return { data: shownOnce(await this.commands.execute(new CreateApiKeyCommand(business.id, body, writeMeta(request)))) };
  }

  @ApiOperation({
    summary: 'Change a key’s name or a restricted key’s permissions (send only what changes)',
    description:
      'Giving a restricted key more access — a resource added, or `read` raised to `write` — changes who can reach the business: it needs a step-up within 15 minutes (403 `step_up_required`, nothing changed, the name included). Renaming and narrowing do not. A publishable key has neither: 409 `publishable_key`. A revoked key cannot be changed: 409 `api_key_revoked`. A secret key’s permissions cannot be limited (create a restricted key): 400 `invalid_request`.',
  })
  @ApiOkResponse({ description: 'The key.', schema: dataOf(API_KEY_SCHEMA) })
  @ApiErrors('step_up_required', 'not_found', 'publishable_key', 'api_key_revoked')
  @Patch(':id')
  async update(@CurrentBusiness() business: Business, @Param('id') id: string, @Body() body: UpdateApiKeyRequest, @SteppedUp() steppedUp: boolean, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new UpdateApiKeyCommand(business.id, id, body, steppedUp, writeMeta(request))) };
  }

  @ApiOperation({
    summary: 'Roll a key: a new secret for the same key; the old one stops working at once',
    description: 'The answer holds the new whole key in `secret`, shown this once. A revoked key: 409 `api_key_revoked`. The Idempotency-Key header is ignored.',
  })
  @ApiOkResponse({ description: 'The key, with its new secret shown once.', schema: dataOf(NEW_API_KEY_SCHEMA) })
  @ApiErrors('not_found', 'api_key_revoked')
  @RequiresStepUp()
  @ShownOnce()
  @PostAction(':id/roll')
  async roll(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: shownOnce(await this.commands.execute(new RollApiKeyCommand(business.id, id, writeMeta(request)))) };
  }

  @ApiOperation({ summary: 'Revoke a key: it stops working at once, for good', description: 'An already revoked key: 409 `api_key_revoked`.' })
  @ApiOkResponse({ description: 'The key, revoked.', schema: dataOf(API_KEY_SCHEMA) })
  @ApiErrors('not_found', 'api_key_revoked')
  @RequiresStepUp()
  @PostAction(':id/revoke')
  async revoke(@CurrentBusiness() business: Business, @Param('id') id: string, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new RevokeApiKeyCommand(id, business.id, writeMeta(request))) };
  }
}
