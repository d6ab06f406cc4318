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
    /** The session stepped up within 15 minutes (@SteppedUp): how a person without a password proves it is them (decision 0037, addendum of 2026-11-29). */
    readonly steppedUp = false,
  ) {
    super();
  }
}
