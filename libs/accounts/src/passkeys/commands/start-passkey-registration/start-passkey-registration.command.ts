import { Command } from '@nestjs/cqrs';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import type { RelyingParty } from '../../webauthn';

/** POST /me/passkeys/registration/options: the options for navigator.credentials.create(), bound to this session. */
export class StartPasskeyRegistrationCommand extends Command<PublicKeyCredentialCreationOptionsJSON> {
  constructor(
    readonly accountId: string,
    readonly sessionId: string,
    readonly rp: RelyingParty,
  ) {
    super();
  }
}
