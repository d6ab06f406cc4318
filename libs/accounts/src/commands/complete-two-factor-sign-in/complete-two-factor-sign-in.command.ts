import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { SessionView } from '../../views';
import type { BrowserContext, StartedSession } from '../account-input';
import type { CompleteTwoFactorSignInRequest } from './complete-two-factor-sign-in.dto';

/** POST /sessions/two-factor: the session, once the challenge is answered with a right code. */
export class CompleteTwoFactorSignInCommand extends Command<StartedSession<SessionView>> {
  constructor(
    readonly input: CompleteTwoFactorSignInRequest,
    readonly browser: BrowserContext,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
