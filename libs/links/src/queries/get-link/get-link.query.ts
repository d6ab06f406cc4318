import { Query } from '@nestjs/cqrs';
import type { LinkView } from '../../views';

/** GET /links/{id}: 404 not_found for none, a deleted one, or another business's. */
export class GetLinkQuery extends Query<LinkView> {
  constructor(
    readonly businessId: string,
    readonly linkId: string,
  ) {
    super();
  }
}
