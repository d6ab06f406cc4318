import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { SessionView } from '../../views';

/**
 * GET /sessions: a page of the person's live sessions, newest first, the current one marked;
 * `query` is the query string (`limit`, `cursor`; anything else is 400 invalid_request).
 */
export class ListSessionsQuery extends Query<Page<SessionView>> {
  constructor(
    readonly accountId: string,
    readonly currentSessionId: string,
    readonly query: Record<string, unknown> | null | undefined,
  ) {
    super();
  }
}
