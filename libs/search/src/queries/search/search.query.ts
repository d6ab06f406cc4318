import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { SearchingKey } from '../../search-request';

/** GET /search (spec §4): a page of the business's payments, customers and links matching `q`. */
export class SearchQuery extends Query<Page<object>> {
  constructor(
    readonly businessId: string,
    readonly key: SearchingKey,
    readonly query: Record<string, unknown>,
  ) {
    super();
  }
}
