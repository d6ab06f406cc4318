import { Command } from '@nestjs/cqrs';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { RelyingParty } from '../../webauthn';

/** POST /sessions/current/step-up/options: options for navigator.credentials.get() naming the person's passkeys, bound to the session. */
export class StartStepUpCommand extends Command<PublicKeyCredentialRequestOptionsJSON> {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly rp: RelyingParty,
  ) {
    super();
  }
}
