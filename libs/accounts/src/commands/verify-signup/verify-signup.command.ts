import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { RelyingParty } from '../../passkeys/webauthn';
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
    /** The relying party a passkey sign-up's registration is verified for (decision 0037); unused by password sign-ups. */
    readonly rp: RelyingParty | null = null,
  ) {
    super();
  }
}
