import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { AccountView, SessionView } from '../../views';
import type { BrowserContext, StartedSession } from '../account-input';
import type { VerifySignupRequest } from './verify-signup.dto';

export type VerifiedSignup = StartedSession<{ account: AccountView; session: SessionView }>;

/** POST /accounts/verify: the code checked; the account, its first business and a session. */
export class VerifySignupCommand extends Command<VerifiedSignup> {
  constructor(
    readonly input: VerifySignupRequest,
    readonly browser: BrowserContext,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
