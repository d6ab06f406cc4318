import { Controller, Get } from '@nestjs/common';
import type { Business } from '@lib/businesses';
import { DashboardOnly, RequiresPermission } from '../auth/auth.decorators';
import { CurrentBusiness } from '../auth/request-auth';

@Controller()
export class BusinessController {
  /** The business the key belongs to. */
  @RequiresPermission('business', 'read')
  @Get('business')
  business(@CurrentBusiness() business: Business) {
    return { data: business };
  }

  /** API key management belongs to dashboard sessions (§5.5); keys get 403 session_required. */
  @DashboardOnly()
  @Get('api_keys')
  apiKeys(): never {
    throw new Error('unreachable: dashboard sessions do not exist yet, and API keys are refused by the guard');
  }
}
