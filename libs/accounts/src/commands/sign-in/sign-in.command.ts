import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { TwoFactorChallengeView } from '../../two-factor/views';
import type { SessionView } from '../../views';
import type { BrowserContext, StartedSession } from '../account-input';
import type { SignInRequest } from './sign-in.dto';

/** POST /sessions: a new session for the person whose e-mail and password these are (with two-step sign-in on: a challenge; decision 0036). */
export class SignInCommand extends Command<StartedSession<SessionView> | TwoFactorChallengeView> {
  constructor(
    readonly input: SignInRequest,
    readonly browser: BrowserContext,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
