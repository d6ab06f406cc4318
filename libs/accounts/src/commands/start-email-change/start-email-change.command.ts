import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { EmailChangeView } from '../../recovery/recovery.views';
import type { StartEmailChangeRequest } from './start-email-change.dto';

/** POST /me/email: a change of the person's address started, its code e-mailed to the new one. */
export class StartEmailChangeCommand extends Command<EmailChangeView> {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly input: StartEmailChangeRequest,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
