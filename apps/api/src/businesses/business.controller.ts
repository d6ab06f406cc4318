import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Business } from '@lib/businesses';
import { GetBusinessQuery } from '@lib/businesses';
import { DashboardOnly, RequiresPermission } from '../auth/auth.decorators';
import { CurrentBusiness } from '../auth/request-auth';
import { dataOf, schemaRef } from '../platform/openapi';

@ApiTags('business')
@Controller()
export class BusinessController {
  constructor(private readonly queries: QueryBus) {}

  /** The business the key belongs to. */
  @ApiOperation({ summary: 'The business the key belongs to' })
  @ApiOkResponse({ description: 'The business.', schema: dataOf(schemaRef('Business')) })
  @RequiresPermission('business', 'read')
  @Get('business')
  async business(@CurrentBusiness() business: Business) {
    return { data: await this.queries.execute(new GetBusinessQuery(business.id)) };
  }

  /** API key management belongs to dashboard sessions (§5.5); keys get 403 session_required. */
  @ApiOperation({ summary: 'List API keys (dashboard sessions only)' })
  @DashboardOnly()
  @Get('api_keys')
  apiKeys(): never {
    throw new Error('unreachable: dashboard sessions do not exist yet, and API keys are refused by the guard');
  }
}
