import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { SignupView } from '../../views';
import type { BrowserContext } from '../account-input';
import type { StartSignupRequest } from './start-signup.dto';

/** POST /accounts: a pending sign-up, its code e-mailed; answers it and the sign-up cookie's token. */
export class StartSignupCommand extends Command<{ signup: SignupView; signupToken: string }> {
  constructor(
    readonly input: StartSignupRequest,
    readonly browser: BrowserContext,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
