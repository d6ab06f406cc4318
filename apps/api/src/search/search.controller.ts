import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { MAX_QUERY_LENGTH, SearchQuery } from '@lib/search';
import { RequiresPermission } from '../auth/auth.decorators';
import { Auth, CurrentBusiness, RequestAuth, accessOf } from '../auth/request-auth';
import type { Business } from '@lib/businesses';
import { ApiErrors } from '../platform/openapi';
import { ApiPage } from '../platform/route-presets';
import { SEARCH_RESULT_SCHEMA } from './schemas';

/** GET /search (spec §4; decision 0031): thin — the query goes to libs/search's handler. */
@ApiTags('search')
@Controller('search')
export class SearchController {
  constructor(private readonly queries: QueryBus) {}

  @ApiOperation({
    summary: 'Search payments, customers and links',
    description:
      'Exact ids, codes, e-mails, hashes and addresses first, then word prefixes and amounts (25, 25.00 or 2500 for 25.00; a currency code or sign with it, as in 25 EUR or €25, matches amounts in that currency only), then matches anywhere; ties: links, customers, payments, newest first. Restricted keys search only what they can read: the kinds of the resources they read (payments, customers, links); asking for a kind the key cannot read, or include=customer without customers read access, is 403.',
  })
  @ApiQuery({ name: 'q', required: true, description: `The text to find, 1 to ${MAX_QUERY_LENGTH} characters.`, schema: { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH } })
  @ApiQuery({ name: 'kind', required: false, description: 'payment, customer or link, or several comma separated; default every kind the key can read.' })
  @ApiQuery({ name: 'include', required: false, description: 'customer: each payment with its customer.' })
  @ApiPage(SEARCH_RESULT_SCHEMA, 'A page of results.', 'next_cursor of the previous page (bound to this search).')
  @ApiErrors('permission_denied')
  // checked by parseSearchRequest after the query is validated (decision 0031: 400 before 403)
  @RequiresPermission(['payments', 'customers', 'links'], 'read', { checkedByUseCase: true })
  @Get()
  search(@CurrentBusiness() business: Business, @Auth() auth: RequestAuth, @Query() query: Record<string, unknown>) {
    const key = accessOf(auth);
    return this.queries.execute(new SearchQuery(business.id, key, query));
  }
}
