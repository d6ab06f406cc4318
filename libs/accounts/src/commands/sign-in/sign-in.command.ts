import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { SessionView } from '../../views';
import type { BrowserContext, StartedSession } from '../account-input';
import type { SignInRequest } from './sign-in.dto';

/** POST /sessions: a new session for the person whose e-mail and password these are. */
export class SignInCommand extends Command<StartedSession<SessionView>> {
  constructor(
    readonly input: SignInRequest,
    readonly browser: BrowserContext,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
