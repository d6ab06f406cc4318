import { Body, Controller, Get } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import { AdvanceTestClockCommand, AdvanceTestClockRequest, GetTestClockQuery } from '@lib/payments';
import { RequiresPermission } from '../auth/auth.decorators';
import { CurrentBusiness } from '../auth/request-auth';
import { ApiErrors, dataOf } from '../platform/openapi';
import { PostAction } from '../platform/route-presets';
import { TEST_CLOCK_SCHEMA } from './schemas';

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
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiOperation({ summary: "The simulated business's clock" })
  @ApiOkResponse({ description: 'The clock.', schema: dataOf(TEST_CLOCK_SCHEMA) })
  @ApiErrors('test_mode_unavailable')
  @RequiresPermission('payments', 'read')
  @Get()
  async get(@CurrentBusiness() business: Business) {
    return { data: { ...(await this.queries.execute(new GetTestClockQuery(business))), timers_fired: 0 } };
  }

  @ApiOperation({ summary: "Advance the simulated business's clock; due timers fire before the response" })
  @ApiOkResponse({ description: 'The clock after the move, and how many timers fired.', schema: dataOf(TEST_CLOCK_SCHEMA) })
  @ApiErrors('test_mode_unavailable')
  @RequiresPermission('payments', 'write')
  @PostAction('advance')
  async advance(@CurrentBusiness() business: Business, @Body() body: AdvanceTestClockRequest) {
    const { fired } = await this.commands.execute(new AdvanceTestClockCommand(business, body.seconds));
    return { data: { ...(await this.queries.execute(new GetTestClockQuery(business))), timers_fired: fired, advanced_seconds: body.seconds } };
  }
}
