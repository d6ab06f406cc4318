import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { LinkView } from '../../views';

/** GET /links: a page of the business's links, newest first (filter `status`). */
export class ListLinksQuery extends Query<Page<LinkView>> {
  constructor(
    readonly businessId: string,
    readonly query: Record<string, unknown>,
  ) {
    super();
  }
}
