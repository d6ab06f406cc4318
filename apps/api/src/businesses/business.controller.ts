import { Body, Controller, Get, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import { ChangeCheckoutSettingsCommand, ChangeCheckoutSettingsDto, GetBusinessQuery, GetCheckoutSettingsQuery } from '@lib/businesses';
import { DashboardOnly } from '../auth/auth.decorators';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { schemaRef } from '../platform/openapi';
import { ChangeRoute, GetRoute } from '../platform/route-presets';

@ApiTags('business')
@Controller()
export class BusinessController {
  constructor(
    private readonly queries: QueryBus,
    private readonly commands: CommandBus,
  ) {}

  /** The business the key belongs to. */
  @GetRoute('business', { summary: 'The business the key belongs to', data: [schemaRef('Business'), 'The business.'], access: ['business', 'read'] })
  async business(@CurrentBusiness() business: Business) {
    return { data: await this.queries.execute(new GetBusinessQuery(business.id)) };
  }

  @GetRoute('checkout-settings', { summary: 'The checkout settings: what customers see and how they may pay', data: [schemaRef('CheckoutSettings'), 'The checkout settings.'], access: ['business', 'read'] })
  async checkoutSettings(@CurrentBusiness() business: Business) {
    return { data: await this.queries.execute(new GetCheckoutSettingsQuery(business.id)) };
  }

  /** §5.4: changing what customers see or pay is refused to test keys on a live business (test_mode_unavailable). */
  @ChangeRoute('checkout-settings', { summary: 'Change the checkout settings (send only what changes)', data: [schemaRef('CheckoutSettings'), 'The checkout settings.'], access: ['business', 'write'], live: true })
  async changeCheckoutSettings(@CurrentBusiness() business: Business, @Body() body: ChangeCheckoutSettingsDto, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new ChangeCheckoutSettingsCommand(business.id, body, writeMeta(request))) };
  }

  /** API key management belongs to dashboard sessions (§5.5); keys get 403 session_required. */
  @ApiOperation({ summary: 'List API keys (dashboard sessions only)' })
  @DashboardOnly()
  @Get('api_keys')
  apiKeys(): never {
    throw new Error('unreachable: dashboard sessions do not exist yet, and API keys are refused by the guard');
  }
}
