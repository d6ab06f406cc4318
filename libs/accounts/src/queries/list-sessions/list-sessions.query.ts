import { Query } from '@nestjs/cqrs';
import type { Page } from '@lib/http';
import type { SessionView } from '../../views';

/** GET /sessions: the person's live sessions, newest first, the current one marked (one page: a person has few). */
export class ListSessionsQuery extends Query<Page<SessionView>> {
  constructor(
    readonly accountId: string,
    readonly currentSessionId: string,
  ) {
    super();
  }
}
