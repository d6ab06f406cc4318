import { Body, Controller, Get, Patch, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import { ChangeCheckoutSettingsCommand, ChangeCheckoutSettingsDto, GetBusinessQuery, GetCheckoutSettingsQuery } from '@lib/businesses';
import { LiveModeAction, RequiresPermission } from '../auth/auth.decorators';
import { CurrentBusiness, writeMeta } from '../auth/request-auth';
import { dataOf, schemaRef } from '../platform/openapi';

@ApiTags('business')
@Controller()
export class BusinessController {
  constructor(
    private readonly queries: QueryBus,
    private readonly commands: CommandBus,
  ) {}

  /** The business the key belongs to. */
  @ApiOperation({ summary: 'The business the key belongs to' })
  @ApiOkResponse({ description: 'The business.', schema: dataOf(schemaRef('Business')) })
  @RequiresPermission('business', 'read')
  @Get('business')
  async business(@CurrentBusiness() business: Business) {
    return { data: await this.queries.execute(new GetBusinessQuery(business.id)) };
  }

  @ApiOperation({ summary: 'The checkout settings: what customers see and how they may pay' })
  @ApiOkResponse({ description: 'The checkout settings.', schema: dataOf(schemaRef('CheckoutSettings')) })
  @RequiresPermission('business', 'read')
  @Get('checkout-settings')
  async checkoutSettings(@CurrentBusiness() business: Business) {
    return { data: await this.queries.execute(new GetCheckoutSettingsQuery(business.id)) };
  }

  /** §5.4: changing what customers see or pay is refused to test keys on a live business (test_mode_unavailable). */
  @ApiOperation({ summary: 'Change the checkout settings (send only what changes)' })
  @ApiOkResponse({ description: 'The checkout settings.', schema: dataOf(schemaRef('CheckoutSettings')) })
  @RequiresPermission('business', 'write')
  @LiveModeAction()
  @Patch('checkout-settings')
  async changeCheckoutSettings(@CurrentBusiness() business: Business, @Body() body: ChangeCheckoutSettingsDto, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new ChangeCheckoutSettingsCommand(business.id, body, writeMeta(request))) };
  }
}
