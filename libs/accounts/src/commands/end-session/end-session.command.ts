import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { SessionEndReason } from '../../events';
import type { SessionView } from '../../views';

/**
 * DELETE /sessions/{id} (`revoked`: another of the person's sessions; the current one is 409
 * current_session) and DELETE /sessions/current (`signed_out`). Answers the session as it was.
 */
export class EndSessionCommand extends Command<SessionView> {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly currentSessionId: string,
    readonly reason: Extract<SessionEndReason, 'revoked' | 'signed_out'>,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
