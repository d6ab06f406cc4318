import { Body, Controller, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import {
  ChangeCheckoutSettingsCommand,
  ChangeCheckoutSettingsDto,
  ConfirmAlertEmailCommand,
  ConfirmAlertEmailDto,
  GetBusinessQuery,
  GetCheckoutSettingsQuery,
  GetReferralQuery,
  UpdateBusinessCommand,
  UpdateBusinessDto,
} from '@lib/businesses';
import { ApiError } from '@lib/http';
import { DashboardOnly, Public, RequiresPermission } from '../auth/auth.decorators';
import { CurrentBusiness, authOf, writeMeta } from '../auth/request-auth';
import { ApiErrors, dataOf, schemaRef } from '../platform/openapi';
import { RateLimit } from '../platform/rate-limit.guard';
import { ChangeRoute, GetRoute } from '../platform/route-presets';

/** The settings of PATCH /businesses/{id} customers see (checkout pages, receipts): refused to test keys on a live business (§5.4; decision 0035). */
const CUSTOMER_FACING_SETTINGS = ['name', 'website', 'support_email'] as const;


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

  /**
   * §4 PATCH /businesses/{id} (decision 0035): send only what changes. Another business's id is 404.
   * A new alert_email waits as pending_alert_email and gets a 6-digit code by e-mail. Test keys on
   * a live business cannot change what customers see (name, website, support_email: 403
   * test_mode_unavailable, §5.4); the alert settings and the referral code they may change.
   */
  @ApiOperation({ summary: 'Change the business settings, alert e-mail or referral code (send only what changes)' })
  @ApiOkResponse({ description: 'The business.', schema: dataOf(schemaRef('Business')) })
  @ApiErrors('not_found', 'test_mode_unavailable', 'too_many_emails', 'email_unavailable', 'referral_locked', 'referral_code_taken')
  @RequiresPermission('business', 'write')
  @Patch('businesses/:id')
  async update(@CurrentBusiness() business: Business, @Param('id') id: string, @Body() body: UpdateBusinessDto, @Req() request: FastifyRequest) {
    const auth = authOf(request);
    if (auth.kind === 'api_key' && auth.key.mode === 'test' && !business.simulated && CUSTOMER_FACING_SETTINGS.some((field) => body[field] !== undefined)) {
      throw new ApiError('test_mode_unavailable', 'A test key cannot change what customers see on a live business (name, website, support_email): use a live secret key.');
    }
    return { data: await this.commands.execute(new UpdateBusinessCommand(id, business.id, body, writeMeta(request))) };
  }

  /** §4: confirms the pending alert address with the e-mailed code. Dashboard sessions only (§5.5). */
  @ApiOperation({ summary: 'Confirm a new alert e-mail with the e-mailed code (dashboard sessions only)' })
  @ApiOkResponse({ description: 'The business: alert_email is the confirmed address, pending_alert_email null.', schema: dataOf(schemaRef('Business')) })
  @ApiErrors('invalid_code', 'code_expired', 'not_found', 'verification_expired', 'too_many_attempts')
  @RequiresPermission('business', 'write')
  @DashboardOnly()
  @HttpCode(200)
  @Post('businesses/:id/alert-email/confirm')
  async confirmAlertEmail(@CurrentBusiness() business: Business, @Param('id') id: string, @Body() body: ConfirmAlertEmailDto, @Req() request: FastifyRequest) {
    return { data: await this.commands.execute(new ConfirmAlertEmailCommand(id, business.id, body.code, writeMeta(request))) };
  }

  /** Public (no credentials): what a sign-up page shows for a referral code (decision 0035). 60 per 10 minutes per IP. */
  @ApiOperation({ summary: 'A referral code: who refers and what the referrer earns (public)' })
  @ApiOkResponse({ description: 'The referral.', schema: dataOf(schemaRef('Referral')) })
  @ApiErrors('not_found', 'rate_limited')
  @Public()
  @RateLimit('referrals.lookup')
  @Get('public/referrals/:code')
  async referral(@Param('code') code: string) {
    return { data: await this.queries.execute(new GetReferralQuery(code)) };
  }
}
