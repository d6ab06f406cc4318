import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import { PaymentDomainError, PaymentsApp } from '@lib/payments';
import { TimerStore } from '@lib/timers';
import { RequiresPermission } from '../auth/auth.decorators';
import { CurrentBusiness } from '../auth/request-auth';
import { ApiErrors, dataOf } from '../platform/openapi';
import { TEST_CLOCK_SCHEMA } from './schemas';
import { AdvanceClockBody } from './dto';

/**
 * Test clocks (beyond the spec, like Stripe's; decision 0010): a simulated business moves its
 * own clock forward and every timer due by then fires before the response — quote and payment
 * expiry, the remainder wait, simulated arrivals and confirmations. Live businesses get 403
 * test_mode_unavailable.
 */
@ApiTags('test clock')
@Controller('test_clock')
export class TestClockController {
  constructor(
    private readonly app: PaymentsApp,
    private readonly timers: TimerStore,
  ) {}

  @ApiOperation({ summary: "The simulated business's clock" })
  @ApiOkResponse({ description: 'The clock.', schema: dataOf(TEST_CLOCK_SCHEMA) })
  @ApiErrors('test_mode_unavailable')
  @RequiresPermission('payments', 'read')
  @Get()
  async get(@CurrentBusiness() business: Business) {
    if (!business.simulated) throw new PaymentDomainError('test_mode_unavailable', 'Only a simulated business has a test clock.');
    return { data: await this.view(business.id, 0) };
  }

  @ApiOperation({ summary: "Advance the simulated business's clock; due timers fire before the response" })
  @ApiOkResponse({ description: 'The clock after the move, and how many timers fired.', schema: dataOf(TEST_CLOCK_SCHEMA) })
  @ApiErrors('test_mode_unavailable')
  @RequiresPermission('payments', 'write')
  @HttpCode(200)
  @Post('advance')
  async advance(@CurrentBusiness() business: Business, @Body() body: AdvanceClockBody) {
    const { fired } = await this.app.advanceClock(business, body.seconds);
    return { data: { ...(await this.view(business.id, fired)), advanced_seconds: body.seconds } };
  }

  private async view(businessId: string, fired: number) {
    const now = await this.timers.clock.now(businessId);
    const offsetMs = now.getTime() - this.timers.wallNow().getTime();
    return { kind: 'test_clock', business_id: businessId, now: now.toISOString(), offset_seconds: Math.max(0, Math.round(offsetMs / 1000)), timers_fired: fired };
  }
}
