import { Body, Controller } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import { AdvanceTestClockCommand, AdvanceTestClockRequest, GetTestClockQuery } from '@lib/payments';
import { CurrentBusiness } from '../auth/request-auth';
import { ActionRoute, GetRoute } from '../platform/route-presets';
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

  @GetRoute(undefined, { summary: "The simulated business's clock", data: [TEST_CLOCK_SCHEMA, 'The clock.'], errors: ['test_mode_unavailable'], access: ['payments', 'read'] })
  async get(@CurrentBusiness() business: Business) {
    return { data: { ...(await this.queries.execute(new GetTestClockQuery(business))), timers_fired: 0 } };
  }

  @ActionRoute('advance', { summary: "Advance the simulated business's clock; due timers fire before the response", data: [TEST_CLOCK_SCHEMA, 'The clock after the move, and how many timers fired.'], errors: ['test_mode_unavailable'], access: ['payments', 'write'] })
  async advance(@CurrentBusiness() business: Business, @Body() body: AdvanceTestClockRequest) {
    const { fired, clock } = await this.commands.execute(new AdvanceTestClockCommand(business, body.seconds));
    return { data: { ...clock, timers_fired: fired, advanced_seconds: body.seconds } };
  }
}
