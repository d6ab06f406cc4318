import { Command } from '@nestjs/cqrs';
import type { WriteMeta } from '@lib/eventstore';
import type { BrowserContext, StartedSession } from '../../../commands/account-input';
import type { SessionView } from '../../../views';
import type { PasskeySignInRequest } from '../../passkey-input';
import type { RelyingParty } from '../../webauthn';

/** POST /passkeys/authentication/verify: the assertion verified, a session started. */
export class PasskeySignInCommand extends Command<StartedSession<SessionView>> {
  constructor(
    readonly input: PasskeySignInRequest,
    /** The `webauthn` cookie's token: the browser that asked for the options. */
    readonly browserToken: string | null,
    readonly browser: BrowserContext,
    readonly rp: RelyingParty,
    readonly meta: WriteMeta = {},
  ) {
    super();
  }
}
